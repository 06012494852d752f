// Writes an event and one outbox row per matching subscription, inside the caller's transaction.
import { isoAt } from '../clock.js'
import type { Deps } from '../domain/context.js'
import { newId } from '../ids.js'
import { insertEvent } from '../store/events.js'
import { insertOutboxRow } from '../store/outbox.js'
import { subscriptionsForEvent } from '../store/webhooks.js'
import type { EventName } from './catalog.js'

export interface NewEvent { name: EventName; boardId: string | null; data: Record<string, unknown> }

/** The exact body every attempt of one delivery sends. */
export const deliveryBody = (deliveryId: string, event: string, timestamp: string, data: unknown): string =>
  bodyWithData(deliveryId, event, timestamp, JSON.stringify(data))

/** Byte-for-byte what JSON.stringify({ id, event, timestamp, data }) gives, reusing data already serialised for the event row. */
const bodyWithData = (deliveryId: string, event: string, timestamp: string, dataJson: string): string =>
  `{"id":${JSON.stringify(deliveryId)},"event":${JSON.stringify(event)},"timestamp":${JSON.stringify(timestamp)},"data":${dataJson}}`

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
  const data = JSON.stringify(event.data)
  insertEvent(sql, id, event.name, event.boardId, data, timestamp)
  const subs = subscriptionsForEvent(sql, event.name, event.boardId)
  for (const webhookId of subs) {
    const deliveryId = newId()
    insertOutboxRow(sql, {
      id: deliveryId, webhook_id: webhookId, event_id: id, board_id: event.boardId, event: event.name,
      body: bodyWithData(deliveryId, event.name, timestamp, data), attempts: 0, status: 'pending',
      due_at: now, lease_until: 0, created_at: timestamp,
    })
  }
  if (subs.length > 0) deps.onOutboxWrite()
  return id
}
