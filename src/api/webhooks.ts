// /v1/webhooks: outgoing subscriptions, the event catalog, samples, logs, and the test and sample actions.
import { z } from 'zod'
import { applyFilter } from '../filter/index.js'
import type { WebhooksTable } from '../db/types.js'
import { isAdmin } from '../domain/context.js'
import { listSamples, sendSampleDelivery, sendTestDelivery, webhookLogs } from '../domain/webhook-actions.js'
import { createWebhook, deleteWebhook, getWebhookFor, updateWebhook, webhookViews } from '../domain/webhooks.js'
import { EVENT_CATALOG } from '../events/catalog.js'
import { registerFilterResource } from '../filter/index.js'
import { expandQuery, pageQuery, pageSchema, parseExpand, parseSort, runPage } from '../http/paging.js'
import { expandBoardList } from '../domain/views.js'
import type { Api } from '../http/route.js'
import { BoardSchema, idParam, name } from './schemas.js'
import { webhooksQuery } from '../store/webhooks.js'
import { EventCatalogSchema, LogSchema, SampleSchema, WebhookSchema } from './webhook-schemas.js'

// A subscription may name boards its creator has since left: the filter tests membership by board id only and
// never follows `boards` into board fields.
registerFilterResource('board_ids', { table: 'boards', fields: { id: { type: 'id', column: 'id' } } })
registerFilterResource('webhooks', { table: 'webhooks', fields: {
  id: { type: 'id', column: 'id' }, name: { type: 'text', column: 'name' }, url: { type: 'text', column: 'url' },
  method: { type: 'enum', column: 'method', values: ['POST', 'PUT', 'PATCH'] }, active: { type: 'boolean', column: 'active' },
  created: { type: 'date', column: 'created_at' }, updated: { type: 'date', column: 'updated_at' },
  created_by: { type: 'id', column: 'created_by', to: 'users' },
  boards: { type: 'multi', target: 'board_ids', link: { table: 'webhook_boards', from: 'webhook_id', to: 'board_id' } },
} })

const SORT = { name: 'webhooks.name', created: 'webhooks.created_at', updated: 'webhooks.updated_at' }
const credential = z.string().max(4096).nullable().optional()
  .meta({ description: 'Write-only. On edit, blank ("") keeps the stored value and null clears it.' })
const authFields = { token: credential, username: credential, password: credential, header_name: z.string().max(100).nullable().optional(), header_value: credential }
const AuthType = z.enum(['none', 'bearer', 'basic', 'header'])
const fields = {
  url: z.string().max(4096).meta({ description: 'http:// or https://, no # fragment; private targets only when the instance allows them.' }),
  method: z.enum(['POST', 'PUT', 'PATCH']),
  events: z.array(z.string().max(100)).max(100).meta({ description: 'Event names, `<family>.*` or `*`; [] receives nothing.' }),
  boards: z.array(z.string().min(1).max(64)).max(500).meta({ description: 'Board ids; [] means every board (owners and admins only).' }),
  secret: z.string().max(1000).nullable().optional().meta({ description: 'Write-only signing secret. On edit, "" keeps it and null clears it.' }),
  generate_secret: z.boolean().optional().meta({ description: 'true: generate a secret and return it once as top-level `secret`.' }),
  headers: z.record(z.string(), z.string()).meta({ description: 'Static headers; authentication wins on a name clash.' }),
  active: z.boolean(),
}
const CreateBody = z.object({
  name, url: fields.url, method: fields.method.default('POST'), events: fields.events, boards: fields.boards.default([]),
  secret: fields.secret, generate_secret: fields.generate_secret,
  auth: z.object({ type: AuthType, ...authFields }).strict().optional(), headers: fields.headers.optional(), active: fields.active.optional(),
}).strict()
const PatchBody = z.object({
  name: name.optional(), url: fields.url.optional(), method: fields.method.optional(), events: fields.events.optional(), boards: fields.boards.optional(),
  secret: fields.secret, generate_secret: fields.generate_secret,
  auth: z.object({ type: AuthType.optional(), ...authFields }).strict().nullable().optional(), headers: fields.headers.optional(), active: fields.active.optional(),
}).strict()
const WithSecret = z.object({ webhook: WebhookSchema, secret: z.string().optional().meta({ description: 'Only when generate_secret was true: shown this once.' }) })

export function webhookRoutes(api: Api): void {
  // The fixed paths come before /v1/webhooks/{id}, which would otherwise take "events" and "samples" for ids.
  api.add({
    method: 'get', path: '/v1/webhooks/events', tag: 'Webhooks', access: 'read', summary: 'Every event, its summary and the fields its data carries',
    responses: { 200: { description: 'The event catalog', schema: EventCatalogSchema } },
    handler: () => ({ status: 200, body: { items: EVENT_CATALOG } }),
  })
  api.add({
    method: 'get', path: '/v1/webhooks/samples', tag: 'Webhooks', access: 'read', summary: 'Recent events in the delivery shape, from your boards; nothing is sent',
    query: z.object({ event: z.string().max(100).optional().meta({ description: 'Event name; 400 when unknown.' }) }),
    responses: { 200: { description: 'Newest first', schema: z.object({ items: z.array(SampleSchema) }) } },
    handler: ({ deps, actor, query }) => ({ status: 200, body: { items: listSamples(deps, actor, query.event) } }),
  })
  api.add({
    method: 'get', path: '/v1/webhooks', tag: 'Webhooks', access: 'read', summary: 'List subscriptions (owners and admins see all, others their own)',
    query: z.object({ ...pageQuery, ...expandQuery(['boards']) }),
    responses: { 200: { description: 'A page of subscriptions', schema: pageSchema(WebhookSchema.extend({ expand: z.object({ boards: z.array(BoardSchema) }).optional() }), 'WebhookPage') } },
    handler: ({ deps, actor, query }) => {
      const expand = parseExpand(query.expand, ['boards'])
      const base = applyFilter(webhooksQuery(isAdmin(actor) ? undefined : actor.user.id), 'webhooks', query.filter)
      const order = parseSort(query.sort ?? 'created', SORT)
      return { status: 200, body: runPage(deps.sql, base, 'webhooks', { page: query.page, perPage: query.per_page, order }, (rows: WebhooksTable[]) => expandBoardList(deps.sql, webhookViews(deps.sql, rows), expand, isAdmin(actor) ? undefined : actor.user.id)) }
    },
  })
  api.add({
    method: 'post', path: '/v1/webhooks', tag: 'Webhooks', access: 'write', summary: 'Create a subscription',
    description: 'URL, private-target, event and board rules answer 422 validation_failed with a readable reason per field in details.',
    body: CreateBody,
    responses: { 201: { description: 'The subscription (never its secret or credentials)', schema: WithSecret } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: withoutUndefined(await createWebhook(deps, actor, body)) }),
  })
  api.add({
    method: 'get', path: '/v1/webhooks/{id}', tag: 'Webhooks', access: 'read', summary: 'Get a subscription', params: idParam,
    responses: { 200: { description: 'The subscription', schema: z.object({ webhook: WebhookSchema }) } },
    handler: ({ deps, actor, params }) => ({ status: 200, body: { webhook: getWebhookFor(deps, actor, params.id) } }),
  })
  api.add({
    method: 'patch', path: '/v1/webhooks/{id}', tag: 'Webhooks', access: 'write', summary: 'Edit a subscription; blank secrets and credentials keep their stored value',
    params: idParam, body: PatchBody,
    responses: { 200: { description: 'The subscription', schema: WithSecret } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: withoutUndefined(await updateWebhook(deps, actor, params.id, body)) }),
  })
  api.add({
    method: 'delete', path: '/v1/webhooks/{id}', tag: 'Webhooks', access: 'write', summary: 'Delete a subscription and its pending deliveries', params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: ({ deps, actor, params }) => { deleteWebhook(deps, actor, params.id); return { status: 204 } },
  })
  api.add({
    method: 'get', path: '/v1/webhooks/{id}/logs', tag: 'Webhooks', access: 'read', summary: 'The last 25 delivery attempts, newest first', params: idParam,
    responses: { 200: { description: 'Attempts', schema: z.object({ items: z.array(LogSchema) }) } },
    handler: ({ deps, actor, params }) => ({ status: 200, body: { items: webhookLogs(deps, actor, params.id) } }),
  })
  api.add({
    method: 'post', path: '/v1/webhooks/{id}/test', tag: 'Webhooks', access: 'write', summary: 'Send a webhook.test delivery through the saved subscription', params: idParam,
    responses: { 202: { description: 'Queued', schema: z.object({ delivery_id: z.string() }) } },
    handler: ({ deps, actor, params }) => ({ status: 202, body: sendTestDelivery(deps, actor, params.id) }),
  })
  api.add({
    method: 'post', path: '/v1/webhooks/{id}/sample', tag: 'Webhooks', access: 'write', summary: 'Deliver the newest real event of the subscription about one second later',
    description: '404 when the workspace has no such event yet.', params: idParam,
    responses: { 202: { description: 'Queued', schema: z.object({ delivery_id: z.string(), event: z.string() }) } },
    handler: ({ deps, actor, params }) => ({ status: 202, body: sendSampleDelivery(deps, actor, params.id) }),
  })
}

const withoutUndefined = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o)) as T
