// Subscription actions: send a test, send a sample of a real event, preview samples, read the delivery log and the event catalog.
import { type Actor, isAdmin } from '../../access/roles.js'
import { memberBoardIds } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Deps } from '../../deps.js'
import { eventCatalog } from '../../events/catalog.js'
import { enqueueDelivery } from '../../events/emit.js'
import { EVENT_NAMES, expandEventSelectors, isEventName } from '../../events/names.js'
import { badRequest, notFound } from '../../errors.js'
import { boardsOfWebhooks, listLogs } from '../../webhooks/store.js'
import { getUser } from '../users/store.js'
import { logView } from './present.js'
import type { LogView, SampleView } from './schema.js'
import { visibleWebhook } from './service.js'
import { newestEvent, recentEvents } from './store.js'

/** SPEC: a sample goes out "about one second later". */
export const SAMPLE_DELAY_MS = 1000
const SAMPLES_SHOWN = 10

export const listEventCatalog = () => eventCatalog()

/** A member who left a board no longer sees the bodies of its events, even in their own subscription's log. */
export function webhookLogs(deps: Deps, actor: Actor, id: string): LogView[] {
  const logs = listLogs(deps.sql, visibleWebhook(deps, actor, id).id)
  if (isAdmin(actor)) return logs.map(logView)
  const mine = new Set(deps.sql.all(memberBoardIds(actor.user.id)).map((r) => r.board_id))
  return logs.filter((l) => l.board_id === null || mine.has(l.board_id)).map(logView)
}

/** A `webhook.test` delivery through the saved subscription: same queue, signature, credentials and log as a real one. */
export function sendTestDelivery(deps: Deps, actor: Actor, id: string): { delivery_id: string } {
  const deliveryId = deps.sql.tx(() => {
    const sub = visibleWebhook(deps, actor, id)
    const now = deps.clock.now()
    return enqueueDelivery(deps, {
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
  deps.onOutboxWrite()
  return { delivery_id: deliveryId }
}

/** Re-delivers the newest real event the subscription would receive (its events, its boards, its creator's reach) with a fresh delivery id. */
export function sendSampleDelivery(deps: Deps, actor: Actor, id: string): { delivery_id: string; event: string } {
  const result = deps.sql.tx(() => {
    const sub = visibleWebhook(deps, actor, id)
    const selected = expandEventSelectors(JSON.parse(sub.events) as string[])
    const names = typeof selected === 'string' ? [] : [...selected].filter((e) => e !== 'webhook.test')
    if (names.length === 0) throw notFound("event for this subscription's events")
    const boards = boardsOfWebhooks(deps.sql, [sub.id]).get(sub.id) ?? []
    if (!sub.all_boards && boards.length === 0) throw notFound("event for this subscription's boards")
    const creator = getUser(deps.sql, sub.created_by)
    const ev = newestEvent(deps.sql, names, sub.all_boards ? null : boards, creator?.role === 'member' ? creator.id : undefined)
    if (!ev) throw notFound("event for this subscription's events")
    const deliveryId = enqueueDelivery(deps, {
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
  deps.onOutboxWrite()
  return result
}

/** Recent events in the delivery shape, from boards the caller belongs to; nothing is sent. */
export function listSamples(deps: Deps, actor: Actor, event: string | undefined): SampleView[] {
  if (event !== undefined && !isEventName(event))
    throw badRequest(`Unknown event "${event}"; see GET /v1/webhooks/events.`, [{ path: 'event', message: `Known events: ${EVENT_NAMES.join(', ')}.` }])
  // Events of no board (audit) are workspace-wide, which only owners and admins may see.
  const rows = recentEvents(deps.sql, actor.user.id, isAdmin(actor), event, SAMPLES_SHOWN)
  return rows.map((e) => ({ id: e.id, event: e.name, timestamp: e.created_at, data: JSON.parse(e.data) as Record<string, unknown> }))
}
