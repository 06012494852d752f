// Incoming webhook endpoints: the record (never the credentials) and its bodies.
import { z } from 'zod'
import { agrees } from '../../db/agrees.js'
import type { IncomingEndpointsTable, IncomingRequestsTable } from '../../db/types.js'
import { name, orNull, UserRef } from '../../http/schemas.js'

export const IncomingMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
export const IncomingAuthType = z.enum(['none', 'header', 'basic'])
export const IncomingOutcome = z.enum([
  'accepted',
  'auth_failed',
  'method_not_allowed',
  'unsupported_body',
  'too_large',
  'rate_limited',
  'files_refused',
  'paused',
])
// The enums and the CHECK constraints of schema.sql agree, or the build fails.
agrees<z.infer<typeof IncomingAuthType>, IncomingEndpointsTable['auth_type']>()
agrees<z.infer<typeof IncomingOutcome>, IncomingRequestsTable['outcome']>()

export const IncomingWebhookSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    url: z.string().meta({ description: '{TASKD_BASE_URL}/v1/hooks/<random path>: hand it to the outside system. Regenerating it kills the old one at once.' }),
    auth: z.strictObject({ type: IncomingAuthType, header_name: z.string().optional() }),
    methods: z.array(IncomingMethod),
    boards: z.array(z.string()).meta({ description: 'Boards whose automations may subscribe to it (see all_boards).' }),
    all_boards: z.boolean().meta({
      description: 'true: saved with boards [], every board may subscribe. false with boards [] means the boards it allowed were all deleted: none may.',
    }),
    accept_files: z.boolean(),
    max_files: z.number().int(),
    paused: z.boolean(),
    created_by: orNull(UserRef),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'IncomingWebhook' })
export type IncomingWebhookView = z.infer<typeof IncomingWebhookSchema>

const credential = z.string().max(4096).nullable().optional().meta({
  description: 'Write-only: never returned. On edit, blank ("") keeps the stored value and null clears it.',
})
const authFields = { header_name: z.string().max(100).nullable().optional(), header_value: credential, username: credential, password: credential }
const fields = {
  methods: z.array(IncomingMethod).min(1).max(5).meta({ description: 'The HTTP methods the URL accepts (a new endpoint: POST only).' }),
  boards: z.array(z.string().min(1).max(64)).max(500),
  accept_files: z.boolean().meta({ description: 'Also take multipart/form-data with files (bodies up to 25 MB instead of 1 MB).' }),
  max_files: z.number().int().min(1).max(20),
  paused: z.boolean().meta({ description: 'A paused endpoint answers 503 and logs Paused.' }),
}
export const CreateIncomingBody = z
  .strictObject({
    name,
    auth: z.strictObject({ type: IncomingAuthType, ...authFields }).optional(),
    methods: fields.methods.default(['POST']),
    boards: fields.boards.default([]),
    accept_files: fields.accept_files.default(false),
    max_files: fields.max_files.default(5),
    paused: fields.paused.default(false),
  })
  .meta({ id: 'CreateIncomingWebhookBody' })
export type CreateIncomingInput = z.infer<typeof CreateIncomingBody>
export const UpdateIncomingBody = z
  .strictObject({
    name: name.optional(),
    auth: z
      .strictObject({ type: IncomingAuthType.optional(), ...authFields })
      .nullable()
      .optional(),
    methods: fields.methods.optional(),
    boards: fields.boards.optional(),
    accept_files: fields.accept_files.optional(),
    max_files: fields.max_files.optional(),
    paused: fields.paused.optional(),
  })
  .meta({ id: 'UpdateIncomingWebhookBody' })
export type UpdateIncomingInput = z.infer<typeof UpdateIncomingBody>

export const IncomingLogSchema = z
  .strictObject({
    id: z.string().meta({ description: 'The request_id of the 202 answer.' }),
    outcome: IncomingOutcome,
    status: z.number().int(),
    method: z.string(),
    ip: z.string(),
    headers: z.record(z.string(), z.string()).meta({ description: 'Only content-type, user-agent, x-request-id and x-delivery-id; never credentials.' }),
    query: z.record(z.string(), z.unknown()),
    body: z.string().meta({ description: 'The body as text, at most 64 KB (empty when it was never read).' }),
    files: z.array(z.strictObject({ name: z.string(), size: z.number().int(), type: z.string() })),
    runs: z.array(z.string()).meta({ description: 'Automation runs the request started.' }),
    at: z.string(),
  })
  .meta({ id: 'IncomingWebhookLog' })
export type IncomingLogView = z.infer<typeof IncomingLogSchema>
