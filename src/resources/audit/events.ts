// The audit log's event: each entry, as GET /v1/audit shows it, also goes out as `audit.entry`.
import { z } from 'zod'
import { described, defineEvents, str, type PayloadsOf } from '../../events/fields.js'
import { AuditActorSchema } from './schema.js'

const entryData = z.object({
  id: str('Audit entry id'),
  action: str('What was done, `<target type>.<verb>`, e.g. token.created, board.member_added, webhook.paused'),
  actor: described(AuditActorSchema, '{ type, id, name } of who did it: user, agent, automation, incoming_webhook, cli or system'),
  target: described(
    z.object({ type: z.string(), id: z.string().nullable(), name: z.string().nullable() }),
    '{ type, id, name } of what it was done to, named as it was then',
  ),
  board: described(z.string().nullable(), 'The id of the board it concerns, or null'),
  details: described(z.record(z.string(), z.unknown()), 'What changed (field names, roles, counts); never a secret'),
  request_id: described(z.string().nullable(), 'X-Request-Id of the API request that did it, or null'),
  created: str('When, ISO 8601'),
})

/**
 * Workspace-wide (no board), so it reaches only subscriptions to every board (`boards: []`) made by owners and admins,
 * as the log itself is theirs only.
 */
export const AUDIT_EVENTS = defineEvents({
  'audit.entry': {
    summary: 'An entry was written to the audit log (owners and admins only: delivered to their subscriptions to every board).',
    data: entryData,
  },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof AUDIT_EVENTS> {}
}
