// /v1/boards: boards, clone and membership.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { ListSchema } from '../lists/schema.js'
import { TagSchema } from '../tags/schema.js'
import { BoardStatusSchema } from '../board-statuses/schema.js'
import { invalidField } from '../../errors.js'
import { XattrFieldSchema } from '../xattr/schema.js'
import { BOARD_LIST, MEMBER_LIST } from './query.js'
import {
  AddMemberBody,
  boardListParams,
  BoardMemberSchema,
  BoardSchema,
  CloneBoardBody,
  CreateBoardBody,
  deleteBoardQuery,
  memberParams,
  TRASH_DAYS,
  UpdateBoardBody,
  UpdateMemberBody,
} from './schema.js'
import {
  addGroupMembers,
  addMember,
  cloneBoard,
  createBoard,
  deleteBoard,
  getBoardFor,
  listBoards,
  listMembers,
  removeMember,
  restoreBoard,
  updateBoard,
  updateMember,
} from './service.js'

const Board = envelope('board', BoardSchema)

export const boardRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/boards',
    operationId: 'listBoards',
    tag: 'Boards',
    access: 'read',
    summary: "List the boards the token's user sees (owners and admins: every board); `trashed=true` lists the trash",
    query: listQuery(BOARD_LIST).extend(boardListParams),
    responses: {
      200: {
        description: 'A page of boards',
        schema: pageSchema(
          BoardSchema.extend({ expand: z.strictObject({ lists: z.array(ListSchema).optional(), members: z.array(BoardMemberSchema).optional() }).optional() }),
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
    summary: 'Create a board; without `lists` it gets To do, In progress and Done. The creator becomes its first admin.',
    description:
      "The board gets one status (/v1/board-statuses) per list name, each list bound to its status; `folder` puts it in a folder (/v1/folders). With `template` (/v1/templates) it gets the template's statuses, lists (bound to the new statuses), tags, custom fields and cards with their values instead, every id new; a template that is gone is a 422 naming `template`.",
    errors: [422],
    body: CreateBoardBody,
    responses: {
      201: {
        description: 'The board, its lists and its statuses',
        schema: z
          .strictObject({
            board: BoardSchema,
            lists: z.array(ListSchema),
            statuses: z.array(BoardStatusSchema),
            tags: z.array(TagSchema).optional().meta({ description: 'With `template`: the tags made from it.' }),
            xattr_fields: z.array(XattrFieldSchema).optional().meta({ description: 'With `template`: the custom fields made from it.' }),
          })
          .meta({ id: 'CreatedBoard' }),
      },
    },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: await createBoard(deps, actor, body) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/boards/{id}',
    operationId: 'getBoard',
    tag: 'Boards',
    access: 'read',
    summary: 'Get a board (also one in the trash: see `trashed`)',
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
    summary: 'Update a board (board admins, workspace owners and admins); a new key_prefix renames every card key',
    params: idParam,
    body: UpdateBoardBody,
    errors: [409],
    responses: { 200: { description: 'The board', schema: Board } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { board: await updateBoard(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/boards/{id}',
    operationId: 'deleteBoard',
    tag: 'Boards',
    access: 'write',
    summary: `Move a board to the trash for ${TRASH_DAYS} days (board admins, workspace owners and admins), or delete it for good with permanent=true (owners and admins)`,
    description:
      `A board in the trash is out of sight with its lists, cards and tags (their routes answer 404; GET /v1/boards?trashed=true lists the trash), ` +
      `and its own routes answer 409 until POST /v1/boards/{id}/restore brings it back as it was. At purge_at (${TRASH_DAYS} days later) it is ` +
      'deleted for good, like permanent=true at once: each card and list gets its card.deleted or list.deleted event, and subscriptions naming only ' +
      'this board are paused. Its key prefix stays reserved.',
    params: idParam,
    query: deleteBoardQuery,
    responses: { 204: { description: 'In the trash, or deleted' } },
    handler: async ({ deps, actor, params, query }) => {
      await deleteBoard(deps, actor, params.id, query.permanent)
      return { status: 204 }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/boards/{id}/restore',
    operationId: 'restoreBoard',
    tag: 'Boards',
    access: 'write',
    summary: 'Take a board out of the trash (board admins, workspace owners and admins); one not in the trash is returned as it is; past purge_at, 409',
    params: idParam,
    errors: [409],
    responses: { 200: { description: 'The board', schema: Board } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { board: await restoreBoard(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/boards/{id}/clone',
    operationId: 'cloneBoard',
    tag: 'Boards',
    access: 'write',
    summary: "Clone a board's statuses, lists, tags and custom fields (not its cards), every id new; the new lists are bound to the new statuses",
    params: idParam,
    body: CloneBoardBody,
    errors: [409],
    responses: {
      201: {
        description: 'The new board',
        schema: z
          .strictObject({
            board: BoardSchema,
            lists: z.array(ListSchema),
            tags: z.array(TagSchema),
            xattr_fields: z.array(XattrFieldSchema),
            statuses: z.array(BoardStatusSchema),
          })
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
    summary: "List a board's members, each with their board_role",
    params: idParam,
    query: listQuery(MEMBER_LIST),
    responses: { 200: { description: 'A page of members', schema: pageSchema(BoardMemberSchema, 'MemberPage') } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: await listMembers(deps, actor, params.id, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/boards/{id}/members',
    operationId: 'addBoardMember',
    tag: 'Boards',
    access: 'write',
    summary: 'Add a member, or every member of a group, as `member` unless `role` says `admin` (board admins, workspace owners and admins)',
    description:
      'With `user`: `201 { user }`, 409 when already a member. With `group` (a /v1/groups id): every member of the group not on the board yet is added, each announced with board.member_added, and the answer is `200 { added: [user ids] }` (those already members are not in it).',
    params: idParam,
    body: AddMemberBody,
    errors: [409],
    responses: {
      201: { description: 'The added member', schema: envelope('user', BoardMemberSchema) },
      200: {
        description: 'The members of the group who were added',
        schema: z.strictObject({ added: z.array(z.string()) }).meta({ id: 'AddedBoardMembers', examples: [{ added: ['u_123', 'u_456'] }] }),
      },
    },
    handler: async ({ deps, actor, params, body }) => {
      if (body.group !== undefined && body.user !== undefined) throw invalidField('group', 'Give `user` or `group`, not both.')
      if (body.group !== undefined) return { status: 200, body: await addGroupMembers(deps, actor, params.id, { group: body.group, role: body.role }) }
      if (body.user === undefined) throw invalidField('user', 'user is required (or give group).')
      return { status: 201, body: { user: await addMember(deps, actor, params.id, body) } }
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/boards/{id}/members/{user}',
    operationId: 'updateBoardMember',
    tag: 'Boards',
    access: 'write',
    summary: "Change a member's board role (board admins, workspace owners and admins); the last admin cannot become a member (409)",
    params: memberParams,
    body: UpdateMemberBody,
    errors: [409],
    responses: { 200: { description: 'The member', schema: envelope('user', BoardMemberSchema) } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { user: await updateMember(deps, actor, params.id, params.user, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/boards/{id}/members/{user}',
    operationId: 'removeBoardMember',
    tag: 'Boards',
    access: 'write',
    summary:
      'Remove a member (board admins, workspace owners and admins), or leave (any member, with their own id); every token of theirs loses the board at once. The last admin cannot go (409).',
    params: memberParams,
    errors: [409],
    responses: { 204: { description: 'Removed' } },
    handler: async ({ deps, actor, params }) => {
      await removeMember(deps, actor, params.id, params.user)
      return { status: 204 }
    },
  }),
]
