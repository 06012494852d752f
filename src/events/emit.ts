// Writes an event and one outbox row per matching subscription, inside the caller's transaction.
import { actorRef, type Actor } from '../access/roles.js'
import { isoAt } from '../clock.js'
import type { Q, Tx } from '../db/database.js'
import type { Deps } from '../deps.js'
import { newId } from '../ids.js'
import type { EventData, EventName } from './fields.js'
import { insertEvent, insertOutboxRow, subscriptionsForEvent } from './store.js'

/** One event to emit; `data` must match the event's payload schema exactly (one variant per event name). */
export type NewEvent = {
  [N in EventName]: { name: N; boardId: string | null; data: EventData<N>; actor: Actor }
}[EventName]

/** The exact body every attempt of one delivery sends. */
export const deliveryBody = (deliveryId: string, event: string, timestamp: string, data: unknown): string =>
  bodyWithData(deliveryId, event, timestamp, JSON.stringify(data))

/** Byte-for-byte what JSON.stringify({ id, event, timestamp, data }) gives, reusing data already serialised for the event row. */
const bodyWithData = (deliveryId: string, event: string, timestamp: string, dataJson: string): string =>
  `{"id":${JSON.stringify(deliveryId)},"event":${JSON.stringify(event)},"timestamp":${JSON.stringify(timestamp)},"data":${dataJson}}`

interface QueuedDelivery {
  webhookId: string
  eventId: string | null
  boardId: string | null
  event: string
  timestamp: string
  dueAt: number
}

async function insertDelivery(q: Q, d: QueuedDelivery & { dataJson: string; createdAt: string }): Promise<string> {
  const id = newId()
  await insertOutboxRow(q, {
    id,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    board_id: d.boardId,
    event: d.event,
    body: bodyWithData(id, d.event, d.timestamp, d.dataJson),
    attempts: 0,
    status: 'pending',
    due_at: d.dueAt,
    lease_until: 0,
    created_at: d.createdAt,
  })
  return id
}

/** A delivery to one subscription outside the fan-out of an event (a test or a sample); returns the delivery id. */
export async function enqueueDelivery(deps: Deps, tx: Tx, d: QueuedDelivery & { data: unknown }): Promise<string> {
  tx.afterCommit(deps.onOutboxWrite)
  return insertDelivery(tx.q, { ...d, dataJson: JSON.stringify(d.data), createdAt: isoAt(deps.clock.now()) })
}

/**
 * Runs inside the transaction of the change: a rolled-back change then leaves neither the event nor its deliveries
 * (nor the automation runs it starts) behind. Delivery itself starts after the commit (onOutboxWrite wakes the
 * scheduler). An event an automation run caused starts no event automation, so two automations cannot loop; an event
 * caused further down a run's chain (an agent answering its kickoff) carries the chain, and starts none of its automations.
 */
export async function emitEvent(deps: Deps, tx: Tx, event: NewEvent): Promise<string> {
  const now = deps.clock.now()
  const timestamp = isoAt(now)
  const id = newId()
  const data = { ...event.data, actor: actorRef(event.actor) }
  const dataJson = JSON.stringify(data)
  await insertEvent(tx.q, id, event.name, event.boardId, dataJson, timestamp)
  const subs = await subscriptionsForEvent(tx.q, event.name, event.boardId)
  for (const webhookId of subs) {
    await insertDelivery(tx.q, { webhookId, eventId: id, boardId: event.boardId, event: event.name, timestamp, dataJson, dueAt: now, createdAt: timestamp })
  }
  if (subs.length > 0) tx.afterCommit(deps.onOutboxWrite)
  if (!event.actor.run) await deps.onEvent(deps, tx, { id, name: event.name, boardId: event.boardId, data, chain: event.actor.chain ?? [] })
  return id
}
