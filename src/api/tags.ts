// /v1/tags: board-scoped tags.
import { z } from 'zod'
import { applyFilter } from '../filter/index.js'
import type { TagsTable } from '../db/types.js'
import { createTag, deleteTag, updateTag, visibleTag } from '../domain/tags.js'
import { expandBoards, tagView } from '../domain/views.js'
import { expandQuery, pageQuery, pageSchema, parseExpand, parseSort, runPage } from '../http/paging.js'
import type { Api } from '../http/route.js'
import { visibleTagsQuery } from '../store/boards.js'
import { BoardSchema, idParam, name, TagSchema } from './schemas.js'

const SORT = { name: 'tags.name', created: 'tags.created_at', updated: 'tags.updated_at' }
const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Must be a hex color like #ff8800.').nullable()

export function tagRoutes(api: Api): void {
  api.add({
    method: 'get', path: '/v1/tags', tag: 'Tags', access: 'read', summary: 'List tags of the visible boards',
    query: z.object({ ...pageQuery, ...expandQuery(['board']), board: z.string().optional().meta({ description: 'Only the tags of this board.' }) }),
    responses: { 200: { description: 'A page of tags', schema: pageSchema(TagSchema.extend({ expand: z.object({ board: BoardSchema }).optional() }), 'TagPage') } },
    handler: ({ deps, actor, query }) => {
      const base = applyFilter(visibleTagsQuery(actor.user.id, query.board), 'tags', query.filter, { anchored: Boolean(query.board) })
      const order = parseSort(query.sort ?? 'name', SORT)
      return { status: 200, body: runPage(deps.sql, base, 'tags', { page: query.page, perPage: query.per_page, order }, (rows: TagsTable[]) => expandBoards(deps.sql, rows.map(tagView), parseExpand(query.expand, ['board']))) }
    },
  })
  api.add({
    method: 'post', path: '/v1/tags', tag: 'Tags', access: 'write', summary: 'Create a tag; names are unique per board (409 on a clash)',
    body: z.object({ board: z.string().min(1), name, color: color.optional() }).strict(),
    responses: { 201: { description: 'The tag', schema: z.object({ tag: TagSchema }) } },
    handler: ({ deps, actor, body }) => ({ status: 201, body: { tag: createTag(deps, actor, body) } }),
  })
  api.add({
    method: 'get', path: '/v1/tags/{id}', tag: 'Tags', access: 'read', summary: 'Get a tag', params: idParam,
    responses: { 200: { description: 'The tag', schema: z.object({ tag: TagSchema }) } },
    handler: ({ deps, actor, params }) => ({ status: 200, body: { tag: tagView(visibleTag(deps, actor, params.id)) } }),
  })
  api.add({
    method: 'patch', path: '/v1/tags/{id}', tag: 'Tags', access: 'write', summary: 'Rename or recolor a tag', params: idParam,
    body: z.object({ name: name.optional(), color: color.optional() }).strict(),
    responses: { 200: { description: 'The tag', schema: z.object({ tag: TagSchema }) } },
    handler: ({ deps, actor, params, body }) => ({ status: 200, body: { tag: updateTag(deps, actor, params.id, body) } }),
  })
  api.add({
    method: 'delete', path: '/v1/tags/{id}', tag: 'Tags', access: 'write', summary: 'Delete a tag (it leaves every card)', params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: ({ deps, actor, params }) => { deleteTag(deps, actor, params.id); return { status: 204 } },
  })
}

