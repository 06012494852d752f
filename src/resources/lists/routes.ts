// /v1/lists: a board's columns, each with a flow category.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { LIST_LIST } from './query.js'
import { CreateListBody, ListSchema, UpdateListBody } from './schema.js'
import { createList, deleteList, getListFor, listLists, updateList } from './service.js'

const List = envelope('list', ListSchema)

export const listRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/lists',
    operationId: 'listLists',
    tag: 'Lists',
    access: 'read',
    summary: 'List lists of the visible boards',
    query: listQuery(LIST_LIST).extend({ board: z.string().optional().meta({ description: 'Only the lists of this board.' }) }),
    responses: {
      200: { description: 'A page of lists', schema: pageSchema(ListSchema.extend({ expand: z.strictObject({ board: BoardSchema }).optional() }), 'ListPage') },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listLists(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/lists',
    operationId: 'createList',
    tag: 'Lists',
    access: 'write',
    summary: 'Create a list (at the end unless a position is given)',
    body: CreateListBody,
    errors: [404],
    responses: { 201: { description: 'The list', schema: List } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { list: await createList(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/lists/{id}',
    operationId: 'getList',
    tag: 'Lists',
    access: 'read',
    summary: 'Get a list',
    params: idParam,
    responses: { 200: { description: 'The list', schema: List } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { list: await getListFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/lists/{id}',
    operationId: 'updateList',
    tag: 'Lists',
    access: 'write',
    summary: 'Rename, reorder or recategorize a list',
    description:
      "A card's completion follows its list's category: a list recategorized into `completed` completes its cards, one recategorized out of `completed` re-opens them.",
    params: idParam,
    body: UpdateListBody,
    responses: { 200: { description: 'The list', schema: List } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { list: await updateList(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/lists/{id}',
    operationId: 'deleteList',
    tag: 'Lists',
    access: 'write',
    summary: "Delete a list; 409 for a board's last list, or a list that holds cards unless move_to names another list of the board",
    params: idParam,
    query: z.object({
      move_to: z
        .string()
        .min(1)
        .optional()
        .meta({ description: "Move the list's cards to this list first; into a `completed` list completes them, out of one re-opens them." }),
    }),
    errors: [409, 422],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params, query }) => {
      await deleteList(deps, actor, params.id, query.move_to)
      return { status: 204 }
    },
  }),
]
