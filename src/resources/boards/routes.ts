// /v1/boards: boards, clone and membership.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { ListSchema } from '../lists/schema.js'
import { TagSchema } from '../tags/schema.js'
import { UserSchema } from '../users/schema.js'
import { BOARD_LIST, MEMBER_LIST } from './query.js'
import { AddMemberBody, BoardSchema, CloneBoardBody, CreateBoardBody, memberParams, UpdateBoardBody } from './schema.js'
import { addMember, cloneBoard, createBoard, deleteBoard, getBoardFor, listBoards, listMembers, removeMember, updateBoard } from './service.js'

const Board = envelope('board', BoardSchema)

export const boardRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/boards',
    operationId: 'listBoards',
    tag: 'Boards',
    access: 'read',
    summary: "List the boards visible to the token's user",
    query: listQuery(BOARD_LIST),
    responses: {
      200: {
        description: 'A page of boards',
        schema: pageSchema(
          BoardSchema.extend({ expand: z.strictObject({ lists: z.array(ListSchema).optional(), members: z.array(UserSchema).optional() }).optional() }),
          'BoardPage',
        ),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listBoards(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/boards',
    operationId: 'createBoard',
    tag: 'Boards',
    access: 'write',
    summary: 'Create a board; without `lists` it gets To do, In progress and Done. The creator becomes a member.',
    body: CreateBoardBody,
    responses: {
      201: { description: 'The board and its lists', schema: z.strictObject({ board: BoardSchema, lists: z.array(ListSchema) }).meta({ id: 'CreatedBoard' }) },
    },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: await createBoard(deps, actor, body) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/boards/{id}',
    operationId: 'getBoard',
    tag: 'Boards',
    access: 'read',
    summary: 'Get a board',
    params: idParam,
    responses: { 200: { description: 'The board', schema: Board } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { board: await getBoardFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/boards/{id}',
    operationId: 'updateBoard',
    tag: 'Boards',
    access: 'write',
    summary: 'Update a board; a new key_prefix renames every card key',
    params: idParam,
    body: UpdateBoardBody,
    responses: { 200: { description: 'The board', schema: Board } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { board: await updateBoard(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/boards/{id}',
    operationId: 'deleteBoard',
    tag: 'Boards',
    access: 'write',
    summary: 'Delete a board with its lists, cards and tags',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteBoard(deps, actor, params.id)
      return { status: 204 }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/boards/{id}/clone',
    operationId: 'cloneBoard',
    tag: 'Boards',
    access: 'write',
    summary: "Clone a board's lists and tags (not its cards)",
    params: idParam,
    body: CloneBoardBody,
    responses: {
      201: {
        description: 'The new board',
        schema: z
          .strictObject({ board: BoardSchema, lists: z.array(ListSchema), tags: z.array(TagSchema), xattr_fields: z.array(z.unknown()) })
          .meta({ id: 'ClonedBoard' }),
      },
    },
    handler: async ({ deps, actor, params, body }) => ({ status: 201, body: await cloneBoard(deps, actor, params.id, body) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/boards/{id}/members',
    operationId: 'listBoardMembers',
    tag: 'Boards',
    access: 'read',
    summary: "List a board's members",
    params: idParam,
    query: listQuery(MEMBER_LIST),
    responses: { 200: { description: 'A page of users', schema: pageSchema(UserSchema, 'MemberPage') } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: await listMembers(deps, actor, params.id, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/boards/{id}/members',
    operationId: 'addBoardMember',
    tag: 'Boards',
    access: 'write',
    summary: 'Add a member (workspace owners/admins, or members of the board)',
    params: idParam,
    body: AddMemberBody,
    errors: [409],
    responses: { 201: { description: 'The added user', schema: envelope('user', UserSchema) } },
    handler: async ({ deps, actor, params, body }) => ({ status: 201, body: { user: await addMember(deps, actor, params.id, body.user) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/boards/{id}/members/{user}',
    operationId: 'removeBoardMember',
    tag: 'Boards',
    access: 'write',
    summary: 'Remove a member; every token of theirs loses the board at once',
    params: memberParams,
    responses: { 204: { description: 'Removed' } },
    handler: async ({ deps, actor, params }) => {
      await removeMember(deps, actor, params.id, params.user)
      return { status: 204 }
    },
  }),
]
