// Subscription actions: send a test, send a sample of a real event, preview samples, and read the delivery log.
import { isoAt } from '../clock.js'
import { qb } from '../db/sql.js'
import type { EventsTable, WebhookLogsTable } from '../db/types.js'
import { EVENT_NAMES, expandEventSelectors, isEventName } from '../events/catalog.js'
import { deliveryBody } from '../events/emit.js'
import { badRequest, notFound } from '../http/errors.js'
import { newId } from '../ids.js'
import { memberBoardIds } from '../store/boards.js'
import { insertOutboxRow, listLogs } from '../store/outbox.js'
import { getUser } from '../store/users.js'
import { boardsOfWebhooks } from '../store/webhooks.js'
import { type Actor, type Deps, isAdmin } from './context.js'
import { visibleWebhook } from './webhooks.js'

/** SPEC: a sample goes out "about one second later". */
export const SAMPLE_DELAY_MS = 1000
const SAMPLES_SHOWN = 10

export interface LogView {
  id: string; delivery_id: string; event: string; attempt: number; status_code: number | null
  outcome: WebhookLogsTable['outcome']; error?: string; duration_ms: number; at: string; request_body: string; response_excerpt: string
}

const logView = (l: WebhookLogsTable): LogView => ({
  id: l.id, delivery_id: l.delivery_id, event: l.event, attempt: l.attempt, status_code: l.status_code, outcome: l.outcome,
  ...(l.error !== null ? { error: l.error } : {}), duration_ms: l.duration_ms, at: l.at, request_body: l.request_body, response_excerpt: l.response_excerpt,
})

/** A member who left a board no longer sees the bodies of its events, even in their own subscription's log. */
export function webhookLogs(deps: Deps, actor: Actor, id: string): LogView[] {
  const logs = listLogs(deps.sql, visibleWebhook(deps, actor, id).id)
  if (isAdmin(actor)) return logs.map(logView)
  const mine = new Set(deps.sql.all(memberBoardIds(actor.user.id)).map((r) => r.board_id))
  return logs.filter((l) => l.board_id === null || mine.has(l.board_id)).map(logView)
}

function enqueue(deps: Deps, row: { webhookId: string; eventId: string | null; boardId: string | null; event: string; timestamp: string; data: unknown; dueAt: number }): string {
  const id = newId()
  insertOutboxRow(deps.sql, {
    id, webhook_id: row.webhookId, event_id: row.eventId, board_id: row.boardId, event: row.event,
    body: deliveryBody(id, row.event, row.timestamp, row.data), attempts: 0, status: 'pending', due_at: row.dueAt, lease_until: 0,
    created_at: isoAt(deps.clock.now()),
  })
  return id
}

/** A `webhook.test` delivery through the saved subscription: same queue, signature, credentials and log as a real one. */
export function sendTestDelivery(deps: Deps, actor: Actor, id: string): { delivery_id: string } {
  const deliveryId = deps.sql.tx(() => {
    const sub = visibleWebhook(deps, actor, id)
    const now = deps.clock.now()
    return enqueue(deps, {
      webhookId: sub.id, eventId: null, boardId: null, event: 'webhook.test', timestamp: isoAt(now), dueAt: now,
      data: { webhook: { id: sub.id, name: sub.name }, message: 'This is a test delivery from taskd.', triggered_by: { id: actor.user.id, name: actor.user.name } },
    })
  })
  deps.onOutboxWrite()
  return { delivery_id: deliveryId }
}

/** Re-delivers the newest real event the subscription would receive (its events, its boards, its creator's reach) with a fresh delivery id. */
export function sendSampleDelivery(deps: Deps, actor: Actor, id: string): { delivery_id: string; event: string } {
  const result = deps.sql.tx(() => {
    const sub = visibleWebhook(deps, actor, id)
    const selected = expandEventSelectors(JSON.parse(sub.events) as string[])
    const names = typeof selected === 'string' ? [] : [...selected].filter((e) => e !== 'webhook.test')
    if (names.length === 0) throw notFound('event for this subscription\'s events')
    let q = qb.selectFrom('events').selectAll().where('name', 'in', names)
    const boards = boardsOfWebhooks(deps.sql, [sub.id]).get(sub.id) ?? []
    if (!sub.all_boards) {
      if (boards.length === 0) throw notFound('event for this subscription\'s boards')
      q = q.where('board_id', 'in', boards)
    }
    const creator = getUser(deps.sql, sub.created_by)
    if (creator?.role === 'member') q = q.where('board_id', 'in', memberBoardIds(creator.id))
    const ev = deps.sql.first(q.orderBy('seq', 'desc').limit(1))
    if (!ev) throw notFound('event for this subscription\'s events')
    const deliveryId = enqueue(deps, {
      webhookId: sub.id, eventId: ev.id, boardId: ev.board_id, event: ev.name, timestamp: ev.created_at,
      data: JSON.parse(ev.data), dueAt: deps.clock.now() + SAMPLE_DELAY_MS,
    })
    return { delivery_id: deliveryId, event: ev.name }
  })
  deps.onOutboxWrite()
  return result
}

export interface SampleView { id: string; event: string; timestamp: string; data: unknown }

/** Recent events in the delivery shape, from boards the caller belongs to; nothing is sent. */
export function listSamples(deps: Deps, actor: Actor, event: string | undefined): SampleView[] {
  if (event !== undefined && !isEventName(event)) throw badRequest(`Unknown event "${event}"; see GET /v1/webhooks/events.`, [{ path: 'event', message: `Known events: ${EVENT_NAMES.join(', ')}.` }])
  let q = qb.selectFrom('events').selectAll()
    .where((eb) => eb.or([
      eb('board_id', 'in', memberBoardIds(actor.user.id)),
      // Events of no board (audit) are workspace-wide, which only owners and admins may see.
      ...(isAdmin(actor) ? [eb('board_id', 'is', null)] : []),
    ]))
  if (event !== undefined) q = q.where('name', '=', event)
  const rows: EventsTable[] = deps.sql.all(q.orderBy('seq', 'desc').limit(SAMPLES_SHOWN))
  return rows.map((e) => ({ id: e.id, event: e.name, timestamp: e.created_at, data: JSON.parse(e.data) }))
}
