// /v1/webhooks/incoming: endpoints outside systems call (the receiving side is /v1/hooks/<path>).
import { senderOf } from '../../http/rate-limit.js'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { INCOMING_LIST } from './query.js'
import { receivedFrom } from './requests.js'
import { z } from 'zod'
import { CreateIncomingBody, IncomingLogSchema, IncomingWebhookSchema, UpdateIncomingBody } from './schema.js'
import { createIncoming, deleteIncoming, getIncomingFor, incomingLogs, listIncoming, regenerateIncoming, triggerIncoming, updateIncoming } from './service.js'

const Incoming = envelope('incoming_webhook', IncomingWebhookSchema)
const IncomingAccepted = z.strictObject({ accepted: z.literal(true), request_id: z.string() }).meta({ id: 'IncomingAccepted' })
const TAG = 'Incoming webhooks'

export const incomingRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/webhooks/incoming',
    operationId: 'listIncomingWebhooks',
    tag: TAG,
    access: 'read',
    summary: 'List the incoming webhook endpoints (owners and admins)',
    query: listQuery(INCOMING_LIST),
    errors: [403],
    responses: { 200: { description: 'A page of endpoints', schema: pageSchema(IncomingWebhookSchema, 'IncomingWebhookPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listIncoming(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhooks/incoming',
    operationId: 'createIncomingWebhook',
    tag: TAG,
    access: 'write',
    summary: 'Create an incoming webhook endpoint (owners and admins); the record shows its URL, never its credentials',
    body: CreateIncomingBody,
    responses: { 201: { description: 'The endpoint', schema: Incoming } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { incoming_webhook: await createIncoming(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/webhooks/incoming/{id}',
    operationId: 'getIncomingWebhook',
    tag: TAG,
    access: 'read',
    summary: 'Get an incoming webhook endpoint (owners and admins)',
    params: idParam,
    errors: [403],
    responses: { 200: { description: 'The endpoint', schema: Incoming } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { incoming_webhook: await getIncomingFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/webhooks/incoming/{id}',
    operationId: 'updateIncomingWebhook',
    tag: TAG,
    access: 'write',
    summary: 'Change an incoming webhook endpoint, pause or resume it (owners and admins)',
    params: idParam,
    body: UpdateIncomingBody,
    responses: { 200: { description: 'The endpoint', schema: Incoming } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { incoming_webhook: await updateIncoming(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/webhooks/incoming/{id}',
    operationId: 'deleteIncomingWebhook',
    tag: TAG,
    access: 'write',
    summary: 'Delete an incoming webhook endpoint (owners and admins); its URL stops working at once. 409 while an automation is triggered by it',
    params: idParam,
    errors: [409],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteIncoming(deps, actor, params.id)
      return { status: 204 }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhooks/incoming/{id}/regenerate',
    operationId: 'regenerateIncomingWebhook',
    tag: TAG,
    access: 'write',
    summary: 'Give the endpoint a new random URL (owners and admins); the old one stops working at once',
    params: idParam,
    responses: { 200: { description: 'The endpoint with its new URL', schema: Incoming } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { incoming_webhook: await regenerateIncoming(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/webhooks/incoming/{id}/logs',
    operationId: 'listIncomingWebhookLogs',
    tag: TAG,
    access: 'read',
    summary: "The endpoint's newest 100 requests, accepted or refused, newest first (owners and admins)",
    params: idParam,
    errors: [403],
    responses: { 200: { description: 'The log', schema: z.strictObject({ items: z.array(IncomingLogSchema) }).meta({ id: 'IncomingWebhookLogs' }) } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { items: await incomingLogs(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhooks/incoming/{id}/trigger',
    operationId: 'triggerIncomingWebhook',
    tag: TAG,
    access: 'write',
    summary: 'Fire the endpoint as the signed-in caller, with no public URL and no external credential (owners and admins; others on a board it allows)',
    description: 'The JSON body is what automations see as webhook.body. Logged like a request to the URL; a paused endpoint answers 503.',
    params: idParam,
    body: z.record(z.string(), z.unknown()).meta({ id: 'TriggerIncomingWebhookBody' }),
    errors: [403, 503],
    responses: { 202: { description: 'Accepted and logged', schema: IncomingAccepted } },
    handler: async ({ deps, actor, params, body, req }) => ({
      status: 202,
      body: await triggerIncoming(deps, actor, params.id, receivedFrom(req, senderOf(deps, req)), body),
    }),
  }),
]

/** `/v1/hooks/{path}` as documented: receive.ts answers it (any method), outside the bearer-token routes. */
export const receiveIncomingDoc = defineRoute({
  method: 'post',
  path: '/v1/hooks/{path}',
  operationId: 'receiveIncomingWebhook',
  tag: TAG,
  access: 'public',
  summary: "An incoming endpoint's public URL: any outside system calls it with the endpoint's methods (POST by default)",
  description: [
    'No bearer token: the random path is the key, with the header or basic credentials the endpoint asks for.',
    'Bodies: application/json, application/x-www-form-urlencoded, none, or multipart/form-data when the endpoint accepts files (every part with a filename is a file); a query string is kept too.',
    'Judged in this order, each request to a known endpoint is logged with its outcome: paused 503, method 405 (with Allow), more than 120 requests a minute from the sender 429 (with Retry-After),',
    'credentials 401, more than 4 uploads (multipart bodies) to the endpoint at once (or 16 to the server) 429 with Retry-After: 1, unread,',
    'body past 1 MB (25 MB for multipart on a file endpoint; counted while it streams) 413, JSON nested deeper than 64 levels 400 (bad_request), another body type or invalid JSON 415,',
    'files the endpoint does not take or more than max_files 422, else 202 once the request is recorded, also when no automation listens.',
    'Files are kept for the automations listening when the request arrives; with none, only their names, sizes and types are logged. An endpoint keeps at most TASKD_INCOMING_FILES_KEPT_BYTES (256 MB) of files: past it the oldest go, except those of requests whose runs have not finished.',
    'An unknown or regenerated-away path is 404 and logged against nothing. Behind a reverse proxy, TASKD_TRUST_PROXY lets X-Forwarded-For name the sender.',
  ].join(' '),
  params: z.object({ path: z.string().meta({ description: 'The random part of the endpoint URL.' }) }),
  errors: [400, 401, 404, 405, 413, 415, 422, 429, 503],
  responses: { 202: { description: 'Accepted and recorded', schema: IncomingAccepted } },
  handler: () => {
    throw new Error('documented only: receive.ts answers /v1/hooks/{path}')
  },
})
