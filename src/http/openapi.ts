// Builds the OpenAPI 3.1 document from the mounted route specs and the event catalog (the `webhooks` section).
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import { z, type ZodType } from 'zod'
import { VERSION } from '../version.js'
import type { AnyRoute } from './route.js'
import { ErrorSchema } from './schemas.js'

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad or unknown query parameter, malformed JSON, unknown sort field or invalid filter',
  401: 'Missing, malformed, unknown, revoked or expired token (or session)',
  403: 'Token permission too low, or not allowed for your role; `csrf_failed`: a write made with the session cookie without its X-CSRF-Token',
  404: 'No such record, or not visible to the token',
  409: 'State conflict',
  410: 'Gone: what the request points at is no longer kept (a change feed cursor past the retention: cursor_expired)',
  413: 'Body over 1 MB',
  415: 'Body is not application/json',
  416: 'The range asked for starts past the end (see Content-Range: bytes */size)',
  422: 'A value breaks a rule; details lists each problem',
  429: 'Rate limited (when TASKD_RATE_LIMIT=on); see Retry-After',
  500: 'Internal error (never carries a stack trace)',
}

/** The error statuses a route can answer: those its shape implies, plus the ones its spec names. */
export function errorStatuses(spec: AnyRoute): number[] {
  const s = new Set<number>(spec.errors ?? [])
  if (spec.access !== 'public') {
    s.add(401).add(429)
    if (spec.method !== 'get' || spec.access === 'full') s.add(403)
  }
  // Every route behind a token refuses a query parameter it does not define, so each can answer 400.
  if (spec.access !== 'public' || spec.query || spec.body) s.add(400)
  if (spec.params) s.add(404)
  if (spec.body || spec.multipart) s.add(413).add(415).add(422)
  s.add(500)
  return [...s].sort((a, b) => a - b)
}

const pascal = (id: string) => id[0].toUpperCase() + id.slice(1)
/** A body without a component name gets one from its operation, so every body is a named schema. */
const named = (schema: ZodType, name: string) => (schema.meta()?.id ? schema : schema.meta({ id: name }))

export interface WebhookEventDoc {
  event: string
  summary: string
  data: ZodType
}

export function buildOpenApi(routes: AnyRoute[], events: readonly WebhookEventDoc[] = [], serverUrl?: string): object {
  const registry = new OpenAPIRegistry()
  const bearer = registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'A personal access token: `Authorization: Bearer tt_...`',
  })
  const cookie = registry.registerComponent('securitySchemes', 'cookieAuth', {
    type: 'apiKey',
    in: 'cookie',
    name: 'taskd_session',
    description:
      'A browser session (`POST /v1/sessions`). Writes made with it (POST, PUT, PATCH, DELETE) also need the session’s CSRF token in `X-CSRF-Token` (403 `csrf_failed` otherwise). A Bearer token, when sent too, wins. Not accepted by MCP (`/mcp`).',
  })
  for (const spec of routes) {
    const responses: Record<string, object> = {}
    for (const [status, r] of Object.entries(spec.responses)) {
      const headers =
        r.headers && Object.fromEntries(Object.entries(r.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]))
      responses[status] = r.schema
        ? { description: r.description, headers, content: { [r.content ?? 'application/json']: { schema: r.schema } } }
        : { description: r.description, headers }
    }
    for (const status of errorStatuses(spec)) {
      responses[status] ??= { description: ERROR_TEXT[status] ?? 'Error', content: { 'application/json': { schema: ErrorSchema } } }
    }
    registry.registerPath({
      method: spec.method,
      path: spec.path,
      operationId: spec.operationId,
      tags: [spec.tag],
      summary: spec.summary,
      description: spec.description,
      security: spec.access === 'public' ? [] : [{ [bearer.name]: [] }, { [cookie.name]: [] }],
      request: {
        params: spec.params,
        query: spec.query,
        body: spec.body
          ? { required: true, content: { 'application/json': { schema: named(spec.body, `${pascal(spec.operationId)}Body`) } } }
          : spec.multipart
            ? { required: true, content: { 'multipart/form-data': { schema: named(spec.multipart, `${pascal(spec.operationId)}Body`) } } }
            : undefined,
      },
      responses,
    })
  }
  // The headers of a delivery, as a receiver sees them: signatures only when the subscription has a secret.
  const deliveryHeaders = z.object({
    'X-Webhook-Event': z.string().meta({ description: 'The event name' }),
    'X-Webhook-Delivery': z.string().meta({ description: 'The delivery id (= body `id`)' }),
    'X-Service-Signature': z.string().optional().meta({ description: '`sha256=` + hex HMAC-SHA256 of the raw body, keyed with the current secret' }),
    'X-Webhook-Signature': z.string().optional().meta({ description: 'Legacy: hex SHA-256 of the raw body followed by the current secret' }),
    'webhook-id': z.string().optional().meta({ description: 'Standard Webhooks: the delivery id, the same on every retry' }),
    'webhook-timestamp': z.string().optional().meta({ description: 'Standard Webhooks: unix seconds of this attempt' }),
    'webhook-signature': z.string().optional().meta({
      description:
        'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the secret’s UTF-8 bytes; during a secret rotation’s overlap a second one made with the old secret follows, space-separated (`v1,<new> v1,<old>`)',
      example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    }),
  })
  for (const e of events) {
    const envelope = z.strictObject({
      id: z.string().meta({ description: 'Delivery id: the same on every retry, for deduplication' }),
      event: z.literal(e.event),
      timestamp: z.string().meta({ description: 'When the event happened, ISO 8601 UTC' }),
      data: e.data,
    })
    registry.registerWebhook({
      method: 'post',
      path: e.event,
      summary: e.summary,
      description:
        'Sent with the subscription\'s method (POST, PUT or PATCH), signed in `X-Service-Signature: sha256=<hex>` and with the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`), which the Standard Webhooks and Svix libraries verify (in JavaScript: `new Webhook(secret, { format: "raw" }).verify(body, headers)`).',
      request: { headers: deliveryHeaders, body: { content: { 'application/json': { schema: envelope } } } },
      responses: { 200: { description: 'Any 2xx acknowledges the delivery; 5xx and timeouts are retried, 4xx is dropped' } },
    })
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'taskd API',
      version: VERSION,
      description: [
        'Self-hosted task and project management. Every error has the shape `{ "error": { "code", "message", "details"? } }`.',
        'Lists answer `{ page, perPage, totalItems, totalPages, items }`.',
        'A query parameter an operation does not list is refused with 400 `bad_request` naming it, never ignored.',
        'Timestamps are named `created` and `updated` on every record; `created_at` on users and tokens is a deprecated alias kept until v2.',
      ].join(' '),
    },
    servers: serverUrl ? [{ url: serverUrl }] : undefined,
  })
}
