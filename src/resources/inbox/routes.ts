// /v1/inbox: the caller's own items; nobody sees another user's inbox.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam, queryBool } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { CardSchema } from '../cards/schema.js'
import { INBOX_LIST } from './query.js'
import { InboxItemSchema, UpdateInboxItemBody } from './schema.js'
import { countUnread, dismissInboxItem, getInboxItem, listInbox, readAllInbox, updateInboxItem } from './service.js'

const Item = envelope('inbox_item', InboxItemSchema)

export const inboxRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/inbox',
    operationId: 'listInbox',
    tag: 'Inbox',
    access: 'read',
    summary: "The caller's inbox, newest first; only items on boards the caller still sees",
    query: listQuery(INBOX_LIST).extend({ unread: queryBool.optional().meta({ description: 'true: only unread items.' }) }),
    responses: {
      200: {
        description: 'A page of inbox items',
        schema: pageSchema(
          InboxItemSchema.extend({
            expand: z.strictObject({ card: CardSchema.optional().meta({ description: 'Absent for an item about no task.' }) }).optional(),
          }),
          'InboxItemPage',
        ),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listInbox(deps, actor, query) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/inbox/unread',
    operationId: 'countUnreadInbox',
    tag: 'Inbox',
    access: 'read',
    summary: 'How many unread items the inbox holds',
    responses: { 200: { description: 'The count', schema: z.strictObject({ unread: z.number().int() }) } },
    handler: async ({ deps, actor }) => ({ status: 200, body: { unread: await countUnread(deps, actor) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/inbox/read-all',
    operationId: 'readAllInbox',
    tag: 'Inbox',
    access: 'write',
    summary: 'Mark every item read',
    responses: { 200: { description: 'How many items were unread', schema: z.strictObject({ updated: z.number().int() }) } },
    handler: async ({ deps, actor }) => ({ status: 200, body: { updated: await readAllInbox(deps, actor) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/inbox/{id}',
    operationId: 'getInboxItem',
    tag: 'Inbox',
    access: 'read',
    summary: 'Get an inbox item',
    params: idParam,
    responses: { 200: { description: 'The item', schema: Item } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { inbox_item: await getInboxItem(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/inbox/{id}',
    operationId: 'updateInboxItem',
    tag: 'Inbox',
    access: 'write',
    summary: 'Mark an item read (`read: true`) or unread',
    params: idParam,
    body: UpdateInboxItemBody,
    responses: { 200: { description: 'The item', schema: Item } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { inbox_item: await updateInboxItem(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/inbox/{id}',
    operationId: 'deleteInboxItem',
    tag: 'Inbox',
    access: 'write',
    summary: 'Dismiss an item',
    params: idParam,
    responses: { 204: { description: 'Dismissed' } },
    handler: async ({ deps, actor, params }) => {
      await dismissInboxItem(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
