// /v1/comments: comments on tasks.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { CardSchema } from '../cards/schema.js'
import { COMMENT_LIST } from './query.js'
import { CommentSchema, CreateCommentBody, UpdateCommentBody } from './schema.js'
import { createComment, deleteComment, getCommentFor, listComments, updateComment } from './service.js'

const Comment = envelope('comment', CommentSchema)
const Expanded = CommentSchema.extend({ expand: z.strictObject({ card: CardSchema }).optional() })

export const commentRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/comments',
    operationId: 'listComments',
    tag: 'Comments',
    access: 'read',
    summary: 'List comments (of one card with `card`), oldest first',
    query: listQuery(COMMENT_LIST).extend({ card: z.string().optional().meta({ description: 'Only the comments of this card.' }) }),
    responses: { 200: { description: 'A page of comments', schema: pageSchema(Expanded, 'CommentPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listComments(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/comments',
    operationId: 'createComment',
    tag: 'Comments',
    access: 'write',
    summary: "Comment on a card; `@name` mentions reach the named members' inboxes, and the card's watchers are told",
    body: CreateCommentBody,
    errors: [404],
    responses: { 201: { description: 'The comment', schema: Comment } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { comment: await createComment(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/comments/{id}',
    operationId: 'getComment',
    tag: 'Comments',
    access: 'read',
    summary: 'Get a comment',
    params: idParam,
    query: listQuery(COMMENT_LIST).pick({ expand: true }),
    responses: { 200: { description: 'The comment', schema: envelope('comment', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { comment: await getCommentFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/comments/{id}',
    operationId: 'updateComment',
    tag: 'Comments',
    access: 'write',
    summary: 'Edit a comment (its author only); newly mentioned members are told',
    params: idParam,
    body: UpdateCommentBody,
    errors: [403],
    responses: { 200: { description: 'The comment', schema: Comment } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { comment: await updateComment(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/comments/{id}',
    operationId: 'deleteComment',
    tag: 'Comments',
    access: 'write',
    summary: 'Delete a comment (its author, owners and admins)',
    params: idParam,
    errors: [403],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteComment(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
