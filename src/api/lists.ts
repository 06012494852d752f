// /v1/lists: a board's columns, each with a flow category.
import { z } from 'zod'
import { applyFilter } from '../filter/index.js'
import type { ListsTable } from '../db/types.js'
import { createList, deleteList, updateList, visibleList } from '../domain/lists.js'
import { expandBoards, listView } from '../domain/views.js'
import { expandQuery, pageQuery, pageSchema, parseExpand, parseSort, runPage } from '../http/paging.js'
import type { Api } from '../http/route.js'
import { visibleListsQuery } from '../store/boards.js'
import { BoardSchema, idParam, ListCategory, ListSchema, name } from './schemas.js'

const SORT = { position: 'lists.position', created: 'lists.created_at', updated: 'lists.updated_at', name: 'lists.name' }

export function listRoutes(api: Api): void {
  api.add({
    method: 'get', path: '/v1/lists', tag: 'Lists', access: 'read', summary: 'List lists of the visible boards',
    query: z.object({ ...pageQuery, ...expandQuery(['board']), board: z.string().optional().meta({ description: 'Only the lists of this board.' }) }),
    responses: { 200: { description: 'A page of lists', schema: pageSchema(ListSchema.extend({ expand: z.object({ board: BoardSchema }).optional() }), 'ListPage') } },
    handler: ({ deps, actor, query }) => {
      const base = applyFilter(visibleListsQuery(actor.user.id, query.board), 'lists', query.filter, { anchored: Boolean(query.board) })
      const order = parseSort(query.sort ?? 'position,created', SORT)
      return { status: 200, body: runPage(deps.sql, base, 'lists', { page: query.page, perPage: query.per_page, order }, (rows: ListsTable[]) => expandBoards(deps.sql, rows.map(listView), parseExpand(query.expand, ['board']))) }
    },
  })
  api.add({
    method: 'post', path: '/v1/lists', tag: 'Lists', access: 'write', summary: 'Create a list (at the end unless a position is given)',
    body: z.object({ board: z.string().min(1), name, category: ListCategory.optional(), position: z.number().finite().optional() }).strict(),
    responses: { 201: { description: 'The list', schema: z.object({ list: ListSchema }) } },
    handler: ({ deps, actor, body }) => ({ status: 201, body: { list: createList(deps, actor, body) } }),
  })
  api.add({
    method: 'get', path: '/v1/lists/{id}', tag: 'Lists', access: 'read', summary: 'Get a list', params: idParam,
    responses: { 200: { description: 'The list', schema: z.object({ list: ListSchema }) } },
    handler: ({ deps, actor, params }) => ({ status: 200, body: { list: listView(visibleList(deps, actor, params.id)) } }),
  })
  api.add({
    method: 'patch', path: '/v1/lists/{id}', tag: 'Lists', access: 'write', summary: 'Rename, reorder or recategorize a list', params: idParam,
    body: z.object({ name: name.optional(), position: z.number().finite().optional(), category: ListCategory.optional() }).strict(),
    responses: { 200: { description: 'The list', schema: z.object({ list: ListSchema }) } },
    handler: ({ deps, actor, params, body }) => ({ status: 200, body: { list: updateList(deps, actor, params.id, body) } }),
  })
  api.add({
    method: 'delete', path: '/v1/lists/{id}', tag: 'Lists', access: 'write',
    summary: 'Delete a list; 409 for a board\'s last list, or a list that holds cards unless move_to names another list of the board',
    params: idParam, query: z.object({ move_to: z.string().min(1).optional().meta({ description: 'Move the list\'s cards to this list first.' }) }),
    responses: { 204: { description: 'Deleted' } },
    handler: ({ deps, actor, params, query }) => { deleteList(deps, actor, params.id, query.move_to); return { status: 204 } },
  })
}

