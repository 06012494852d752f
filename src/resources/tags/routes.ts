// /v1/tags: board-scoped tags.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { TAG_LIST } from './query.js'
import { CreateTagBody, TagSchema, UpdateTagBody } from './schema.js'
import { createTag, deleteTag, getTagFor, listTags, updateTag } from './service.js'

const Tag = envelope('tag', TagSchema)

export const tagRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/tags',
    operationId: 'listTags',
    tag: 'Tags',
    access: 'read',
    summary: 'List tags of the visible boards',
    query: listQuery(TAG_LIST).extend({ board: z.string().optional().meta({ description: 'Only the tags of this board.' }) }),
    responses: {
      200: { description: 'A page of tags', schema: pageSchema(TagSchema.extend({ expand: z.strictObject({ board: BoardSchema }).optional() }), 'TagPage') },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listTags(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/tags',
    operationId: 'createTag',
    tag: 'Tags',
    access: 'write',
    summary: 'Create a tag; names are unique per board (409 on a clash)',
    body: CreateTagBody,
    errors: [404, 409],
    responses: { 201: { description: 'The tag', schema: Tag } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { tag: await createTag(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/tags/{id}',
    operationId: 'getTag',
    tag: 'Tags',
    access: 'read',
    summary: 'Get a tag',
    params: idParam,
    responses: { 200: { description: 'The tag', schema: Tag } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { tag: await getTagFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/tags/{id}',
    operationId: 'updateTag',
    tag: 'Tags',
    access: 'write',
    summary: 'Rename or recolor a tag',
    params: idParam,
    body: UpdateTagBody,
    errors: [409],
    responses: { 200: { description: 'The tag', schema: Tag } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { tag: await updateTag(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/tags/{id}',
    operationId: 'deleteTag',
    tag: 'Tags',
    access: 'write',
    summary: 'Delete a tag (it leaves every card)',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteTag(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
