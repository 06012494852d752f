// /v1/board-statuses: a board's workflow states.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { BOARD_STATUS_LIST } from './query.js'
import { BoardStatusSchema, CreateBoardStatusBody, DeleteBoardStatusQuery, UpdateBoardStatusBody } from './schema.js'
import { createBoardStatus, deleteBoardStatus, getBoardStatusFor, listBoardStatuses, updateBoardStatus } from './service.js'

const BoardStatus = envelope('board_status', BoardStatusSchema)

const ABOUT =
  "A board's statuses are its workflow states. A list may be bound to one (`status` on the list): it then has the status's category, and its cards show the status as `status: { id, name, category }`. A new board gets one status per list it is made with, its lists bound to them. A card given `status` (create, PATCH, bulk-update-cards) goes to the board's first list bound to that status. Any member of the board with a write token manages its statuses."

export const boardStatusRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/board-statuses',
    operationId: 'listBoardStatuses',
    tag: 'Board statuses',
    access: 'read',
    summary: 'List the statuses of the visible boards',
    description: ABOUT,
    query: listQuery(BOARD_STATUS_LIST).extend({ board: z.string().optional().meta({ description: 'Only the statuses of this board.' }) }),
    responses: {
      200: {
        description: 'A page of statuses',
        schema: pageSchema(BoardStatusSchema.extend({ expand: z.strictObject({ board: BoardSchema }).optional() }), 'BoardStatusPage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listBoardStatuses(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/board-statuses',
    operationId: 'createBoardStatus',
    tag: 'Board statuses',
    access: 'write',
    summary: 'Create a status; names are unique per board whatever the case (409 on a clash)',
    description: ABOUT,
    body: CreateBoardStatusBody,
    errors: [404, 409],
    responses: { 201: { description: 'The status', schema: BoardStatus } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { board_status: await createBoardStatus(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/board-statuses/{id}',
    operationId: 'getBoardStatus',
    tag: 'Board statuses',
    access: 'read',
    summary: 'Get a status',
    params: idParam,
    responses: { 200: { description: 'The status', schema: BoardStatus } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { board_status: await getBoardStatusFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/board-statuses/{id}',
    operationId: 'updateBoardStatus',
    tag: 'Board statuses',
    access: 'write',
    summary: 'Rename, recolour, reorder or recategorize a status; its lists take a new category and their cards follow the completion rule',
    description:
      'Emits `board_status.updated`. A new name or category changes the `status` every card of its lists shows: each such card not in the trash is announced with `card.updated` naming `status`, in the same transaction as the change. With a new category, the cards of its lists then complete or re-open by the completion rule (their own `card.updated`, `card.completed` or `card.reopened`). A new colour or position announces no card.',
    params: idParam,
    body: UpdateBoardStatusBody,
    errors: [409],
    responses: { 200: { description: 'The status', schema: BoardStatus } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { board_status: await updateBoardStatus(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/board-statuses/{id}',
    operationId: 'deleteBoardStatus',
    tag: 'Board statuses',
    access: 'write',
    summary: 'Delete a status; 409 while lists are bound to it, unless move_to names another status of the board for them',
    params: idParam,
    query: DeleteBoardStatusQuery,
    errors: [409, 422],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params, query }) => {
      await deleteBoardStatus(deps, actor, params.id, query.move_to)
      return { status: 204 }
    },
  }),
]
