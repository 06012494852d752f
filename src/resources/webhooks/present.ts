// Subscriptions and delivery-log entries in API shape: never a secret or a credential, only whether they exist.
import type { Q } from '../../db/database.js'
import type { WebhookLogsTable, WebhooksTable } from '../../db/types.js'
import { rotationEnd } from '../../delivery/credentials.js'
import { redactStaticHeaders } from '../../delivery/headers.js'
import { boardsOfWebhooks } from '../../delivery/store.js'
import { creatorsOf } from '../users/present.js'
import { type LogView, PAUSED_REASONS, type WebhookView } from './schema.js'
import { fromJsonColumn, StringList, StringMap } from '../../db/json.js'

/** `now` decides whether a secret rotation's overlap still lasts (the housekeeping pass forgets the old secret later). */
export async function webhookViews(q: Q, rows: WebhooksTable[], now: number): Promise<WebhookView[]> {
  const boards = await boardsOfWebhooks(
    q,
    rows.map((r) => r.id),
  )
  const creator = await creatorsOf(q, rows)
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    url: r.url,
    method: r.method,
    events: fromJsonColumn(StringList, r.events),
    boards: boards.get(r.id) ?? [],
    headers: redactStaticHeaders(fromJsonColumn(StringMap, r.headers)),
    active: r.active === 1,
    paused_reason: PAUSED_REASONS.find((p) => p === r.paused_reason) ?? null,
    has_secret: r.secret_enc !== null,
    secret_rotating_until: r.previous_secret_enc === null ? null : rotationEnd(r.previous_secret_until, now),
    auth: r.auth_type === 'header' ? { type: r.auth_type, header_name: r.auth_header_name ?? '' } : { type: r.auth_type },
    created_by: creator(r.created_by)!,
    last_delivery:
      r.last_outcome && r.last_at
        ? { status_code: r.last_status_code, outcome: r.last_outcome as NonNullable<WebhookView['last_delivery']>['outcome'], at: r.last_at }
        : null,
    created: r.created_at,
    updated: r.updated_at,
  }))
}

export const logView = (l: WebhookLogsTable): LogView => ({
  id: l.id,
  delivery_id: l.delivery_id,
  event: l.event,
  attempt: l.attempt,
  status_code: l.status_code,
  outcome: l.outcome,
  ...(l.error !== null ? { error: l.error } : {}),
  duration_ms: l.duration_ms,
  at: l.at,
  request_body: l.request_body,
  response_excerpt: l.response_excerpt,
})
