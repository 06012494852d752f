// Writes an event and one outbox row per matching subscription, inside the caller's transaction.
import { isoAt } from '../clock.js'
import type { Deps } from '../deps.js'
import { newId } from '../ids.js'
import type { EventName } from './names.js'
import { insertEvent, insertOutboxRow, subscriptionsForEvent } from './store.js'

export interface NewEvent {
  name: EventName
  boardId: string | null
  data: Record<string, unknown>
}

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

function insertDelivery(sql: Deps['sql'], d: QueuedDelivery & { dataJson: string; createdAt: string }): string {
  const id = newId()
  insertOutboxRow(sql, {
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
export const enqueueDelivery = (deps: Deps, d: QueuedDelivery & { data: unknown }): string =>
  insertDelivery(deps.sql, { ...d, dataJson: JSON.stringify(d.data), createdAt: isoAt(deps.clock.now()) })

/**
 * Must run inside the transaction of the change: a rolled-back change then leaves neither the event
 * nor its deliveries behind. Delivery itself starts after commit (onOutboxWrite defers to the scheduler).
 */
export function emitEvent(deps: Deps, event: NewEvent): string {
  const { sql } = deps
  if (!sql.raw.inTransaction) throw new Error('emitEvent must run inside a transaction')
  const now = deps.clock.now()
  const timestamp = isoAt(now)
  const id = newId()
  const dataJson = JSON.stringify(event.data)
  insertEvent(sql, id, event.name, event.boardId, dataJson, timestamp)
  const subs = subscriptionsForEvent(sql, event.name, event.boardId)
  for (const webhookId of subs) {
    insertDelivery(sql, { webhookId, eventId: id, boardId: event.boardId, event: event.name, timestamp, dataJson, dueAt: now, createdAt: timestamp })
  }
  if (subs.length > 0) deps.onOutboxWrite()
  return id
}
