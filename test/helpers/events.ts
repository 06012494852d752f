// Every event payload a test sees is parsed with its event's schema, strictly: a key the schema lacks (at any depth),
// a missing key or a wrong type fails. Test apps check the events they stored on close, receivers what they received.
import assert from 'node:assert/strict'
import type { Db } from '../../src/db/database.js'
import { eventDef, isEventName } from '../../src/events/names.js'
import '../../src/resources/index.js'
import { dbAll } from './db.js'

export function assertPayload(event: string, data: unknown): void {
  const known = eventDef(event)
  assert.ok(known, `${event} is an event of the catalog`)
  const parsed = known.def.data.safeParse(data)
  assert.ok(parsed.success, `${event}: the payload does not match its schema: ${parsed.error?.message}`)
  // zod drops keys its schema does not know, at any depth: what the parse kept must be all there was.
  assert.deepEqual(parsed.data, data, `${event}: the payload carries keys its schema does not document`)
}

/** Checks every event the database holds. */
export async function assertStoredPayloads(db: Db): Promise<void> {
  for (const e of await dbAll<{ name: string; data: string }>(db, 'SELECT name, data FROM events ORDER BY seq')) assertPayload(e.name, JSON.parse(e.data))
}

/** Checks a request body when it is a delivery (`{ id, event, timestamp, data }` of a catalog event); other bodies pass. */
export function assertDeliveryPayload(body: unknown): void {
  if (typeof body !== 'object' || body === null) return
  const { event, data } = body as { event?: unknown; data?: unknown }
  if (typeof event === 'string' && isEventName(event) && 'id' in body && 'timestamp' in body) assertPayload(event, data)
}
