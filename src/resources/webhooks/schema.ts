// Outgoing webhook subscriptions: the record, bodies, delivery log entries, samples and the event catalog.
import { z } from 'zod'
import { agrees } from '../../db/agrees.js'
import type { WebhookLogsTable, WebhooksTable } from '../../db/types.js'
import { name, UserRef } from '../../http/schemas.js'

export const WebhookMethod = z.enum(['POST', 'PUT', 'PATCH'])
const AuthType = z.enum(['none', 'bearer', 'basic', 'header'])
export const DeliveryOutcome = z.enum(['delivered', 'failed', 'retrying', 'dropped'])
/** Why taskd paused a subscription (webhooks.paused_reason). */
export const PAUSED_REASONS = ['board_deleted', 'failing'] as const
// The enums and the CHECK constraints of schema.sql agree, or the build fails.
agrees<z.infer<typeof WebhookMethod>, WebhooksTable['method']>()
agrees<z.infer<typeof AuthType>, WebhooksTable['auth_type']>()
agrees<z.infer<typeof DeliveryOutcome>, WebhookLogsTable['outcome']>()

export const WebhookSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    method: WebhookMethod,
    events: z.array(z.string()),
    boards: z.array(z.string()),
    headers: z.record(z.string(), z.string()),
    active: z.boolean(),
    paused_reason: z.enum(PAUSED_REASONS).nullable().meta({
      description:
        'Why taskd made the subscription inactive, null otherwise. `board_deleted`: every board it named was deleted for good; the deletion events of that board (card.deleted, comment.deleted, list.deleted) are still delivered, then nothing, since it covers no board (activating it again does not widen it to every board). `failing`: its deliveries failed for 3 days without one success, or 100 in a row (its creator finds an inbox item and the audit log a `webhook.paused` entry); POST /v1/webhooks/{id}/resume takes it up again, optionally replaying what it missed. Setting `active` clears it.',
    }),
    has_secret: z.boolean(),
    secret_rotating_until: z.string().nullable().meta({
      description:
        'While a secret rotation overlaps (POST /v1/webhooks/{id}/rotate-secret): until when the secret before it still signs `webhook-signature` beside the new one (ISO 8601 UTC); null otherwise.',
    }),
    auth: z.strictObject({ type: AuthType, header_name: z.string().optional() }),
    created_by: UserRef,
    last_delivery: z.strictObject({ status_code: z.number().int().nullable(), outcome: DeliveryOutcome, at: z.string() }).nullable(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Webhook' })

export const LogSchema = z
  .strictObject({
    id: z.string(),
    delivery_id: z.string(),
    event: z.string(),
    attempt: z.number().int(),
    status_code: z.number().int().nullable(),
    outcome: DeliveryOutcome,
    error: z.string().optional(),
    duration_ms: z.number().int(),
    at: z.string(),
    request_body: z.string().meta({ description: 'The exact body sent' }),
    response_excerpt: z.string().meta({
      description:
        'First 1,024 bytes of the answer, with any echo of the subscription\'s credentials redacted; shown to the subscription\'s creator only (others get "").',
    }),
  })
  .meta({ id: 'WebhookLog' })

export const SampleSchema = z
  .strictObject({
    id: z.string(),
    event: z.string(),
    timestamp: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WebhookSample' })

export const EventCatalogSchema = z
  .strictObject({
    items: z.array(
      z.strictObject({
        event: z.string(),
        family: z.string(),
        summary: z.string(),
        available: z.boolean().meta({ description: 'false for events no code emits yet; a subscription to only such events is refused' }),
        fields: z.array(z.strictObject({ name: z.string(), type: z.string(), description: z.string() })),
      }),
    ),
  })
  .meta({ id: 'EventCatalog' })
export type WebhookView = z.infer<typeof WebhookSchema>
export type LogView = z.infer<typeof LogSchema>
export type SampleView = z.infer<typeof SampleSchema>

const credential = z.string().max(4096).nullable().optional().meta({
  description: 'Write-only. On edit, blank ("") keeps the stored value and null clears it; an edit that changes the URL must send it again (422 otherwise).',
})
const authFields = {
  token: credential,
  username: credential,
  password: credential,
  header_name: z.string().max(100).nullable().optional(),
  header_value: credential,
}
const fields = {
  url: z.string().max(4096).meta({ description: 'http:// or https://, no # fragment; private targets only when the instance allows them.' }),
  method: WebhookMethod,
  events: z.array(z.string().max(100)).max(100).meta({ description: 'Event names, `<family>.*` or `*`; [] receives nothing.' }),
  boards: z.array(z.string().min(1).max(64)).max(500).meta({ description: 'Board ids; [] means every board (owners and admins only).' }),
  secret: z.string().max(1000).nullable().optional().meta({
    description: 'Write-only signing secret. On edit, "" keeps it and null clears it; an edit that changes the URL must send it again (422 otherwise).',
  }),
  generate_secret: z.boolean().optional().meta({ description: 'true: generate a secret and return it once as top-level `secret`.' }),
  headers: z.record(z.string(), z.string()).meta({ description: 'Static headers; authentication wins on a name clash.' }),
  active: z.boolean(),
}
export const CreateWebhookBody = z
  .object({
    name,
    url: fields.url,
    method: fields.method.default('POST'),
    events: fields.events,
    boards: fields.boards.default([]),
    secret: fields.secret,
    generate_secret: fields.generate_secret,
    auth: z
      .object({ type: AuthType, ...authFields })
      .strict()
      .optional(),
    headers: fields.headers.optional(),
    active: fields.active.optional(),
  })
  .strict()
  .meta({ id: 'CreateWebhookBody' })
export const UpdateWebhookBody = z
  .object({
    name: name.optional(),
    url: fields.url.optional(),
    method: fields.method.optional(),
    events: fields.events.optional(),
    boards: fields.boards.optional(),
    secret: fields.secret,
    generate_secret: fields.generate_secret,
    auth: z
      .object({ type: AuthType.optional(), ...authFields })
      .strict()
      .nullable()
      .optional(),
    headers: fields.headers.optional(),
    active: fields.active.optional(),
  })
  .strict()
  .meta({ id: 'UpdateWebhookBody' })
export const WithSecret = z
  .strictObject({ webhook: WebhookSchema, secret: z.string().optional().meta({ description: 'Only when generate_secret was true: shown this once.' }) })
  .meta({ id: 'WebhookWithSecret' })

export const RotateWebhookSecretBody = z
  .strictObject({
    overlap_hours: z.number().int().min(0).max(168).default(24).meta({
      description:
        'Hours the old secret keeps signing `webhook-signature` beside the new one (`v1,<new> v1,<old>`), 0 to 168; 0 ends it at once. `X-Service-Signature` and `X-Webhook-Signature` use the new secret at once.',
    }),
  })
  .meta({ id: 'RotateWebhookSecretBody', examples: [{ overlap_hours: 24 }] })
export type RotateWebhookSecretInput = z.infer<typeof RotateWebhookSecretBody>
export const RotatedWebhookSecret = z
  .strictObject({
    webhook: WebhookSchema,
    secret: z.string().meta({ description: 'The new secret, shown this once.' }),
  })
  .meta({ id: 'RotatedWebhookSecret' })

export type WebhookInput = z.infer<typeof UpdateWebhookBody>
export type CreateWebhookInput = WebhookInput & { name: string; url: string; events: string[] }

export const ResumeWebhookBody = z
  .strictObject({
    replay_since: z.iso.datetime({ offset: true }).optional().meta({
      description:
        'Replay what the subscription missed: every event from this time on (ISO 8601, not in the future, at most 10,000 events, no earlier than the event log keeps them: TASKD_EVENT_RETENTION_DAYS, 30 days by default, else 422) that it takes, in their order, each a new delivery of the original payload. Without it nothing missed is sent.',
    }),
  })
  .meta({ id: 'ResumeWebhookBody', examples: [{}, { replay_since: '2026-11-20T09:00:00Z' }] })
