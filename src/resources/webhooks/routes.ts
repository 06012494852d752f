// /v1/webhooks: outgoing subscriptions, the event catalog, samples, logs, and the test and sample actions.
import { z } from 'zod'
import { defineRoute, NO_STORE } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { listEventCatalog, listSamples, redeliverLogged, sendSampleDelivery, sendTestDelivery, webhookLogs } from './actions.js'
import { resumeWebhook } from './health.js'
import { WEBHOOK_LIST } from './query.js'
import {
  CreateWebhookBody,
  EventCatalogSchema,
  LogSchema,
  ResumeWebhookBody,
  RotatedWebhookSecret,
  RotateWebhookSecretBody,
  SampleSchema,
  UpdateWebhookBody,
  WebhookSchema,
  WithSecret,
} from './schema.js'
import { createWebhook, deleteWebhook, getWebhookFor, listWebhooks, rotateWebhookSecret, updateWebhook } from './service.js'

const withoutUndefined = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o)) as T

const QueuedDelivery = z
  .strictObject({ delivery_id: z.string().meta({ description: 'The new delivery; its attempts show in the logs under this id.' }) })
  .meta({ id: 'QueuedDelivery', examples: [{ delivery_id: '0d2kq8vz0000a1b2' }] })

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
    responses: { 202: { description: 'Queued', schema: QueuedDelivery } },
    handler: async ({ deps, actor, params }) => ({ status: 202, body: await sendTestDelivery(deps, actor, params.id) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhooks/{id}/logs/{log}/redeliver',
    operationId: 'redeliverWebhookLog',
    tag: 'Webhooks',
    access: 'write',
    summary: 'Send a logged delivery again, with the same delivery id',
    description:
      "Queues the exact body of the logged attempt again as a new delivery (its own `delivery_id` and log entries). The body's `id` and the " +
      '`X-Webhook-Delivery` header keep the id of the delivery it repeats, so a receiver that stores the ids it has handled can drop it. Also ' +
      'while the subscription is paused. 404 when the log entry is gone (the last 25 attempts are kept) or not yours to see.',
    params: z.object({ id: z.string().min(1), log: z.string().min(1).meta({ description: 'A log entry id from GET /v1/webhooks/{id}/logs.' }) }),
    responses: { 202: { description: 'Queued', schema: QueuedDelivery } },
    handler: async ({ deps, actor, params }) => ({ status: 202, body: await redeliverLogged(deps, actor, params.id, params.log) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhooks/{id}/resume',
    operationId: 'resumeWebhook',
    tag: 'Webhooks',
    access: 'write',
    summary: 'Take up an inactive subscription again, optionally replaying what it missed',
    description:
      'Makes the subscription active and clears `paused_reason` and its failure count (taskd pauses one whose deliveries failed for 3 days ' +
      'without one success, or 100 times in a row: `paused_reason: "failing"`). Nothing it missed is sent, and deliveries still queued from ' +
      'before are dropped, unless `replay_since` is given: then every event since that time that it takes (its events, its boards, what its ' +
      'creator sees) is delivered again in its order. 409 when it is active. PATCH `active: true` also resumes it, without a replay.',
    params: idParam,
    body: ResumeWebhookBody,
    errors: [409],
    responses: {
      200: {
        description: 'The subscription, and how many events were queued again',
        schema: z
          .strictObject({ webhook: WebhookSchema, replayed: z.number().int().meta({ description: 'Events queued again (0 without replay_since).' }) })
          .meta({ id: 'ResumedWebhook' }),
      },
    },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: await resumeWebhook(deps, actor, params.id, body) }),
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
