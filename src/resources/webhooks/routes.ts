// /v1/webhooks: outgoing subscriptions, the event catalog, samples, logs, and the test and sample actions.
import { z } from 'zod'
import { defineRoute, NO_STORE } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { listEventCatalog, listSamples, sendSampleDelivery, sendTestDelivery, webhookLogs } from './actions.js'
import { WEBHOOK_LIST } from './query.js'
import {
  CreateWebhookBody,
  EventCatalogSchema,
  LogSchema,
  RotatedWebhookSecret,
  RotateWebhookSecretBody,
  SampleSchema,
  UpdateWebhookBody,
  WebhookSchema,
  WithSecret,
} from './schema.js'
import { createWebhook, deleteWebhook, getWebhookFor, listWebhooks, rotateWebhookSecret, updateWebhook } from './service.js'

const withoutUndefined = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o)) as T

// The fixed paths come before /v1/webhooks/{id}, which would otherwise take "events" and "samples" for ids.
export const webhookRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/webhooks/events',
    operationId: 'listWebhookEvents',
    tag: 'Webhooks',
    access: 'read',
    summary: 'Every event, its summary, the fields its data carries, and whether taskd emits it yet',
    responses: { 200: { description: 'The event catalog', schema: EventCatalogSchema } },
    handler: () => ({ status: 200, body: { items: listEventCatalog() } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/webhooks/samples',
    operationId: 'listWebhookSamples',
    tag: 'Webhooks',
    access: 'read',
    summary: 'Recent events in the delivery shape, from your boards; nothing is sent',
    query: z.object({ event: z.string().max(100).optional().meta({ description: 'Event name; 400 when unknown.' }) }),
    responses: { 200: { description: 'Newest first', schema: z.strictObject({ items: z.array(SampleSchema) }).meta({ id: 'WebhookSampleList' }) } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: { items: await listSamples(deps, actor, query.event) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/webhooks',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    access: 'read',
    summary: 'List subscriptions (owners and admins see all, others their own)',
    query: listQuery(WEBHOOK_LIST),
    responses: {
      200: {
        description: 'A page of subscriptions',
        schema: pageSchema(WebhookSchema.extend({ expand: z.strictObject({ boards: z.array(BoardSchema) }).optional() }), 'WebhookPage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listWebhooks(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    access: 'write',
    summary: 'Create a subscription',
    description: 'URL, private-target, event and board rules answer 422 validation_failed with a readable reason per field in details.',
    body: CreateWebhookBody,
    responses: { 201: { description: 'The subscription (never its secret or credentials)', schema: WithSecret } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: withoutUndefined(await createWebhook(deps, actor, body)), headers: NO_STORE }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/webhooks/{id}',
    operationId: 'getWebhook',
    tag: 'Webhooks',
    access: 'read',
    summary: 'Get a subscription',
    params: idParam,
    responses: { 200: { description: 'The subscription', schema: envelope('webhook', WebhookSchema) } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { webhook: await getWebhookFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/webhooks/{id}',
    operationId: 'updateWebhook',
    tag: 'Webhooks',
    access: 'write',
    summary: 'Edit a subscription; blank secrets and credentials keep their stored value',
    params: idParam,
    body: UpdateWebhookBody,
    responses: { 200: { description: 'The subscription', schema: WithSecret } },
    handler: async ({ deps, actor, params, body }) => ({
      status: 200,
      body: withoutUndefined(await updateWebhook(deps, actor, params.id, body)),
      headers: NO_STORE,
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/webhooks/{id}',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    access: 'write',
    summary: 'Delete a subscription and its pending deliveries',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteWebhook(deps, actor, params.id)
      return { status: 204 }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    access: 'write',
    summary: 'Rotate the signing secret without downtime: the old one keeps signing beside the new one for the overlap',
    description: [
      'taskd generates a new secret and answers it this once as `secret`; it signs every delivery from now on. For `overlap_hours` (default 24, 0 to 168)',
      'the old secret signs too, in the Standard Webhooks header only: `webhook-signature: v1,<new> v1,<old>`, so a receiver that still holds the old',
      'secret verifies deliveries until it has the new one. `X-Service-Signature` and `X-Webhook-Signature` use the new secret at once. The record shows',
      'the end of the overlap in `secret_rotating_until`; after it the old secret is forgotten. Rotating again during an overlap ends it (only the',
      'secret being replaced is kept). 409 when the subscription has no secret.',
    ].join(' '),
    params: idParam,
    body: RotateWebhookSecretBody,
    errors: [409],
    responses: { 200: { description: 'The subscription, and its new secret (shown this once)', schema: RotatedWebhookSecret } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: await rotateWebhookSecret(deps, actor, params.id, body), headers: NO_STORE }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/webhooks/{id}/logs',
    operationId: 'listWebhookLogs',
    tag: 'Webhooks',
    access: 'read',
    summary: 'The last 25 delivery attempts, newest first',
    params: idParam,
    responses: { 200: { description: 'Attempts', schema: z.strictObject({ items: z.array(LogSchema) }).meta({ id: 'WebhookLogList' }) } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { items: await webhookLogs(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhooks/{id}/test',
    operationId: 'testWebhook',
    tag: 'Webhooks',
    access: 'write',
    summary: 'Send a webhook.test delivery through the saved subscription',
    params: idParam,
    responses: { 202: { description: 'Queued', schema: z.strictObject({ delivery_id: z.string() }).meta({ id: 'QueuedDelivery' }) } },
    handler: async ({ deps, actor, params }) => ({ status: 202, body: await sendTestDelivery(deps, actor, params.id) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhooks/{id}/sample',
    operationId: 'sendWebhookSample',
    tag: 'Webhooks',
    access: 'write',
    summary: 'Deliver the newest real event of the subscription about one second later',
    description: '404 when the workspace has no such event yet.',
    params: idParam,
    responses: { 202: { description: 'Queued', schema: z.strictObject({ delivery_id: z.string(), event: z.string() }).meta({ id: 'QueuedSample' }) } },
    handler: async ({ deps, actor, params }) => ({ status: 202, body: await sendSampleDelivery(deps, actor, params.id) }),
  }),
]
