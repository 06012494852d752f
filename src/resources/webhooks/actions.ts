// Subscription actions: send a test, send a sample of a real event, preview samples, read the delivery log and the event catalog.
import { type Actor, isAdmin } from '../../access/roles.js'
import { visibleBoardIds } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Deps } from '../../deps.js'
import { eventCatalog } from '../../events/catalog.js'
import { enqueueDelivery, enqueueRedelivery } from '../../events/emit.js'
import { eventNames, expandEventSelectors, isEventName } from '../../events/names.js'
import { badRequest, notFound } from '../../errors.js'
import { boardsOfWebhooks, listLogs } from '../../delivery/store.js'
import { getUser } from '../users/published.js'
import { logView } from './present.js'
import type { LogView, SampleView } from './schema.js'
import { visibleWebhook } from './service.js'
import { getLog, newestEvent, recentEvents } from './store.js'
import { fromJsonColumn, JsonObject, StringList } from '../../db/json.js'
import { z } from 'zod'

/** A delivery's body as taskd writes it: `{ id, event, timestamp, data }`, the id first. */
const DeliveryEnvelope = z.object({ id: z.string() })

/** A sample goes out about one second later. */
export const SAMPLE_DELAY_MS = 1000
const SAMPLES_SHOWN = 10

export const listEventCatalog = () => eventCatalog()

/**
 * A member who left a board no longer sees the bodies of its events, even in their own subscription's log. What the
 * receiver answered is shown to the subscription's creator only: a receiver can echo what it was sent, and the log must
 * not become a way for anyone else (an admin included) to read or test-guess the stored credentials.
 */
export async function webhookLogs(deps: Deps, actor: Actor, id: string): Promise<LogView[]> {
  const { q } = deps.db
  const hook = await visibleWebhook(q, actor, id)
  const logs = await listLogs(q, hook.id)
  const view = (l: (typeof logs)[number]) => logView(hook.created_by === actor.user.id ? l : { ...l, response_excerpt: '' })
  if (isAdmin(actor)) return logs.map(view)
  const mine = new Set((await visibleBoardIds(q, actor.user).execute()).map((r) => r.board_id))
  return logs.filter((l) => l.board_id === null || mine.has(l.board_id)).map(view)
}

/**
 * Sends a logged delivery again, as it was sent (same body, same delivery id in the body and X-Webhook-Delivery, so the
 * receiver can tell a repeat), as a new delivery with a log of its own; also while the subscription is paused. Who may
 * not see the logged entry (a member who left its board) gets 404.
 */
export async function redeliverLogged(deps: Deps, actor: Actor, id: string, logId: string): Promise<{ delivery_id: string }> {
  const deliveryId = await deps.db.tx(async (tx) => {
    const sub = await visibleWebhook(tx.q, actor, id)
    const log = await getLog(tx.q, sub.id, logId)
    const seen =
      log && (isAdmin(actor) || log.board_id === null || (await visibleBoardIds(tx.q, actor.user).execute()).some((b) => b.board_id === log.board_id))
    if (!log || !seen) throw notFound('delivery log entry')
    const sent = fromJsonColumn(DeliveryEnvelope, log.request_body)
    return enqueueRedelivery(deps, tx, {
      webhookId: sub.id,
      boardId: log.board_id,
      event: log.event,
      body: log.request_body,
      redeliveryOf: sent.id,
      dueAt: deps.clock.now(),
    })
  })
  return { delivery_id: deliveryId }
}

/** A `webhook.test` delivery through the saved subscription: same queue, signature, credentials and log as a real one. */
export async function sendTestDelivery(deps: Deps, actor: Actor, id: string): Promise<{ delivery_id: string }> {
  const deliveryId = await deps.db.tx(async (tx) => {
    const sub = await visibleWebhook(tx.q, actor, id)
    const now = deps.clock.now()
    return enqueueDelivery(deps, tx, {
      webhookId: sub.id,
      eventId: null,
      boardId: null,
      event: 'webhook.test',
      timestamp: isoAt(now),
      dueAt: now,
      data: {
        webhook: { id: sub.id, name: sub.name },
        message: 'This is a test delivery from taskd.',
        triggered_by: { id: actor.user.id, name: actor.user.name },
      },
    })
  })
  return { delivery_id: deliveryId }
}

/** Re-delivers the newest real event the subscription would receive (its events, its boards, its creator's reach) with a fresh delivery id. */
export function sendSampleDelivery(deps: Deps, actor: Actor, id: string): Promise<{ delivery_id: string; event: string }> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const sub = await visibleWebhook(q, actor, id)
    const selected = expandEventSelectors(fromJsonColumn(StringList, sub.events))
    const names = typeof selected === 'string' ? [] : [...selected].filter((e) => e !== 'webhook.test')
    if (names.length === 0) throw notFound("event for this subscription's events")
    const boards = (await boardsOfWebhooks(q, [sub.id])).get(sub.id) ?? []
    if (!sub.all_boards && boards.length === 0) throw notFound("event for this subscription's boards")
    const creator = await getUser(q, sub.created_by)
    const ev = creator && (await newestEvent(q, names, sub.all_boards ? null : boards, creator))
    if (!ev) throw notFound("event for this subscription's events")
    const deliveryId = await enqueueDelivery(deps, tx, {
      webhookId: sub.id,
      eventId: ev.id,
      boardId: ev.board_id,
      event: ev.name,
      timestamp: ev.created_at,
      data: JSON.parse(ev.data),
      dueAt: deps.clock.now() + SAMPLE_DELAY_MS,
    })
    return { delivery_id: deliveryId, event: ev.name }
  })
}

/** Recent events in the delivery shape, from boards the caller belongs to; nothing is sent. */
export async function listSamples(deps: Deps, actor: Actor, event: string | undefined): Promise<SampleView[]> {
  if (event !== undefined && !isEventName(event))
    throw badRequest(`Unknown event "${event}"; see GET /v1/webhooks/events.`, [{ path: 'event', message: `Known events: ${eventNames().join(', ')}.` }])
  // Events of no board (audit) are workspace-wide, which only owners and admins may see.
  const rows = await recentEvents(deps.db.q, actor.user, event, SAMPLES_SHOWN)
  return rows.map((e) => ({ id: e.id, event: e.name, timestamp: e.created_at, data: fromJsonColumn(JsonObject, e.data) }))
}
