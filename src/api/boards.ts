// /v1/boards: boards, clone and membership.
import { z } from 'zod'
import { applyFilter } from '../filter/index.js'
import type { BoardsTable, UsersTable } from '../db/types.js'
import { addMember, cloneBoard, createBoard, deleteBoard, getBoardFor, removeMember, updateBoard } from '../domain/boards.js'
import { visibleBoard } from '../domain/access.js'
import { userView } from '../domain/users.js'
import { boardView } from '../domain/views.js'
import { expandQuery, pageQuery, pageSchema, parseExpand, parseSort, runPage } from '../http/paging.js'
import type { Api } from '../http/route.js'
import { boardMembersQuery, listsOfBoards, membersOfBoards, visibleBoardsQuery } from '../store/boards.js'
import { USER_SORT } from './users.js'
import { BoardSchema, idParam, ListSchema, name, TagSchema, UserSchema } from './schemas.js'
import { listView } from '../domain/views.js'

const keyPrefix = z.string().regex(/^[A-Z][A-Z0-9]{0,9}$/, 'Must be 1 to 10 capital letters or digits, starting with a letter.')
const SORT = { created: 'boards.created_at', updated: 'boards.updated_at', name: 'boards.name' }
const EXPANDS = ['lists', 'members'] as const

export function boardRoutes(api: Api): void {
  api.add({
    method: 'get', path: '/v1/boards', tag: 'Boards', access: 'read', summary: 'List the boards visible to the token\'s user',
    query: z.object({ ...pageQuery, ...expandQuery(EXPANDS) }),
    responses: { 200: { description: 'A page of boards', schema: pageSchema(BoardSchema.extend({ expand: z.record(z.string(), z.unknown()).optional() }), 'BoardPage') } },
    handler: ({ deps, actor, query }) => {
      const expand = parseExpand(query.expand, EXPANDS)
      const base = applyFilter(visibleBoardsQuery(actor.user.id), 'boards', query.filter)
      const order = parseSort(query.sort ?? 'created', SORT)
      const page = runPage(deps.sql, base, 'boards', { page: query.page, perPage: query.per_page, order }, (rows: BoardsTable[]) => {
        const views = rows.map((b) => ({ ...boardView(b), ...(expand.size ? { expand: {} as Record<string, unknown> } : {}) }))
        const ids = rows.map((r) => r.id)
        if (expand.has('lists')) {
          const lists = listsOfBoards(deps.sql, ids)
          for (const v of views) v.expand!.lists = lists.filter((l) => l.board_id === v.id).map(listView)
        }
        if (expand.has('members')) {
          const rows = membersOfBoards(deps.sql, ids)
          for (const v of views) v.expand!.members = rows.filter((r) => r.board_id === v.id).map((r) => userView(r))
        }
        return views
      })
      return { status: 200, body: page }
    },
  })
  api.add({
    method: 'post', path: '/v1/boards', tag: 'Boards', access: 'write',
    summary: 'Create a board; without `lists` it gets To do, In progress and Done. The creator becomes a member.',
    body: z.object({ name, key_prefix: keyPrefix.optional(), description: z.string().max(20000).optional(), lists: z.array(name).min(1).max(50).optional() }).strict(),
    responses: { 201: { description: 'The board and its lists', schema: z.object({ board: BoardSchema, lists: z.array(ListSchema) }) } },
    handler: ({ deps, actor, body }) => ({ status: 201, body: createBoard(deps, actor, body) }),
  })
  api.add({
    method: 'get', path: '/v1/boards/{id}', tag: 'Boards', access: 'read', summary: 'Get a board', params: idParam,
    responses: { 200: { description: 'The board', schema: z.object({ board: BoardSchema }) } },
    handler: ({ deps, actor, params }) => ({ status: 200, body: { board: getBoardFor(deps, actor, params.id) } }),
  })
  api.add({
    method: 'patch', path: '/v1/boards/{id}', tag: 'Boards', access: 'write', summary: 'Update a board; a new key_prefix renames every card key',
    params: idParam,
    body: z.object({ name: name.optional(), key_prefix: keyPrefix.optional(), description: z.string().max(20000).optional() }).strict(),
    responses: { 200: { description: 'The board', schema: z.object({ board: BoardSchema }) } },
    handler: ({ deps, actor, params, body }) => ({ status: 200, body: { board: updateBoard(deps, actor, params.id, body) } }),
  })
  api.add({
    method: 'delete', path: '/v1/boards/{id}', tag: 'Boards', access: 'write', summary: 'Delete a board with its lists, cards and tags', params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: ({ deps, actor, params }) => { deleteBoard(deps, actor, params.id); return { status: 204 } },
  })
  api.add({
    method: 'post', path: '/v1/boards/{id}/clone', tag: 'Boards', access: 'write', summary: 'Clone a board\'s lists and tags (not its cards)',
    params: idParam, body: z.object({ name: name.optional() }).strict(),
    responses: { 201: { description: 'The new board', schema: z.object({ board: BoardSchema, lists: z.array(ListSchema), tags: z.array(TagSchema), xattr_fields: z.array(z.unknown()) }) } },
    handler: ({ deps, actor, params, body }) => ({ status: 201, body: cloneBoard(deps, actor, params.id, body) }),
  })
  api.add({
    method: 'get', path: '/v1/boards/{id}/members', tag: 'Boards', access: 'read', summary: 'List a board\'s members',
    params: idParam, query: z.object({ ...pageQuery }),
    responses: { 200: { description: 'A page of users', schema: pageSchema(UserSchema, 'MemberPage') } },
    handler: ({ deps, actor, params, query }) => {
      visibleBoard(deps.sql, actor, params.id)
      const base = applyFilter(boardMembersQuery(params.id), 'users', query.filter)
      const order = parseSort(query.sort ?? 'name', USER_SORT)
      return { status: 200, body: runPage(deps.sql, base, 'users', { page: query.page, perPage: query.per_page, order }, (rows: UsersTable[]) => rows.map(userView)) }
    },
  })
  api.add({
    method: 'post', path: '/v1/boards/{id}/members', tag: 'Boards', access: 'write',
    summary: 'Add a member (workspace owners/admins, or members of the board)', params: idParam,
    body: z.object({ user: z.string().min(1) }).strict(),
    responses: { 201: { description: 'The added user', schema: z.object({ user: UserSchema }) } },
    handler: ({ deps, actor, params, body }) => ({ status: 201, body: { user: addMember(deps, actor, params.id, body.user) } }),
  })
  api.add({
    method: 'delete', path: '/v1/boards/{id}/members/{user}', tag: 'Boards', access: 'write',
    summary: 'Remove a member; every token of theirs loses the board at once',
    params: z.object({ id: z.string(), user: z.string() }),
    responses: { 204: { description: 'Removed' } },
    handler: ({ deps, actor, params }) => { removeMember(deps, actor, params.id, params.user); return { status: 204 } },
  })
}
