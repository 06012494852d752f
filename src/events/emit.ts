// Writes an event and one outbox row per matching subscription, inside the caller's transaction.
import { actorRef, type Actor } from '../access/roles.js'
import { isoAt } from '../clock.js'
import { type Q, together, type Tx } from '../db/database.js'
import type { Deps } from '../deps.js'
import { newId } from '../ids.js'
import { WORKSPACE } from '../db/wakes.js'
import type { EventData, EventName } from './fields.js'
import { insertEvents, insertOutboxRow, insertOutboxRows, type OutboxRow, receiversOf, subscriptionsOf } from './store.js'

/**
 * Who caused an event: the Actor of a request or a run, whose reference the payload's `actor` becomes; or an actor the
 * payload states itself (`audit.entry`, whose actor has a type and may be the command line or taskd, with no user).
 */
export type EventCause = Actor | { stated: Record<string, unknown>; run?: undefined; chain?: undefined }

/**
 * One event to emit; `data` must match the event's payload schema exactly (one variant per event name). `audience`: the
 * one user who may see it (a record private to them): only their subscriptions receive it, only they see it in samples,
 * and it starts no event automation of its board. Without it, everyone who sees its board (or, with no board, the
 * owners and admins) may.
 */
export type NewEvent = {
  [N in EventName]: { name: N; boardId: string | null; data: EventData<N>; actor: EventCause; audience?: string }
}[EventName]

/** The exact body every attempt of one delivery sends. */
export const deliveryBody = (deliveryId: string, event: string, timestamp: string, data: unknown): string =>
  bodyWithData(deliveryId, event, timestamp, JSON.stringify(data))

/**
 * Byte-for-byte what JSON.stringify({ id, event, timestamp, data }) gives, reusing data already serialised for the event
 * row: a delivery's body, and an item of the change feed.
 */
export const bodyWithData = (deliveryId: string, event: string, timestamp: string, dataJson: string): string =>
  `{"id":${JSON.stringify(deliveryId)},"event":${JSON.stringify(event)},"timestamp":${JSON.stringify(timestamp)},"data":${dataJson}}`

interface QueuedDelivery {
  webhookId: string
  eventId: string | null
  boardId: string | null
  event: string
  timestamp: string
  dueAt: number
}

function deliveryRow(d: QueuedDelivery & { dataJson: string; createdAt: string }): OutboxRow {
  const id = newId()
  return {
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
    redelivery_of: null,
  }
}

/** A delivery to one subscription outside the fan-out of an event (a test or a sample); returns the delivery id. */
export async function enqueueDelivery(deps: Deps, tx: Tx, d: QueuedDelivery & { data: unknown }): Promise<string> {
  tx.afterCommit(deps.onOutboxWrite)
  tx.wake('outbox', d.webhookId)
  const row = deliveryRow({ ...d, dataJson: JSON.stringify(d.data), createdAt: isoAt(deps.clock.now()) })
  await insertOutboxRow(tx.q, row)
  return row.id
}

/**
 * A delivery sent again (a redelivery): a new row with the exact body that was sent, whose id (`redeliveryOf`) the
 * headers carry too, so the receiver sees the same delivery id and can drop the repeat. Returns the new row's id.
 */
export async function enqueueRedelivery(
  deps: Deps,
  tx: Tx,
  d: { webhookId: string; boardId: string | null; event: string; body: string; redeliveryOf: string; dueAt: number },
): Promise<string> {
  tx.afterCommit(deps.onOutboxWrite)
  tx.wake('outbox', d.webhookId)
  const id = newId()
  await insertOutboxRow(tx.q, {
    id,
    webhook_id: d.webhookId,
    event_id: null,
    board_id: d.boardId,
    event: d.event,
    body: d.body,
    attempts: 0,
    status: 'pending',
    due_at: d.dueAt,
    lease_until: 0,
    created_at: isoAt(deps.clock.now()),
    redelivery_of: d.redeliveryOf,
  })
  return id
}

/**
 * Runs inside the transaction of the change: a rolled-back change then leaves neither the event nor its deliveries
 * (nor the automation runs it starts) behind. Delivery itself starts after the commit (onOutboxWrite wakes the
 * scheduler). An event an automation run caused starts no event automation, so two automations cannot loop; an event
 * caused further down a run's chain (an agent answering its kickoff) carries the chain, and starts none of its automations.
 */
export async function emitEvent(deps: Deps, tx: Tx, event: NewEvent): Promise<string> {
  return (await emitEvents(deps, tx, [event]))[0]
}

/** Rows per multi-row insert: within both dialects' limits on bound parameters (11 columns an outbox row). */
const ROWS_PER_INSERT = 500

/**
 * emitEvent for many events at once (a cascade's chunk), in their order: one lookup of the receiving subscriptions per
 * board, one insert for the event rows, one for the outbox rows.
 */
export async function emitEvents(deps: Deps, tx: Tx, events: readonly NewEvent[]): Promise<string[]> {
  const now = deps.clock.now()
  const written = events.map((event) => {
    const data = { ...event.data, actor: 'stated' in event.actor ? event.actor.stated : actorRef(event.actor) }
    return { id: newId(), event, data, dataJson: JSON.stringify(data), now }
  })
  if (written.length === 0) return []
  const fromHook = hookEmits.get(tx.q)
  if (fromHook) fromHook.push(written)
  else await writeEvents(deps, tx, written)
  return written.map((w) => w.id)
}

type Written = { id: string; event: NewEvent; data: Record<string, unknown>; dataJson: string; now: number }
/**
 * Events the event hook emits in its transaction (an automation paused, audited) while the events that started it wait
 * for it: they are written after those, so their rows and deliveries come after their cause. Kept by the transaction's
 * connection, not the async context: work a transaction starts (SQLite's commit group) runs other transactions too.
 */
const hookEmits = new WeakMap<Q, Written[][]>()

async function writeEvents(deps: Deps, tx: Tx, written: readonly Written[]): Promise<void> {
  const now = written[0].now
  const timestamp = isoAt(now)
  // The subscriptions of each board, read once, then chosen per event; beside them the event hook (the automations the
  // events start) reads what it needs: together, one round trip on PostgreSQL.
  const boardIds = [...new Set(written.map(({ event }) => event.boardId))]
  const hooked = written.filter(({ event }) => !event.actor.run && !event.audience)
  const caused: Written[][] = []
  // (No hook is running in this transaction here: events emitted while one runs wait for it, and are written after.)
  hookEmits.set(tx.q, caused)
  let subscriptions: (readonly [string | null, Awaited<ReturnType<typeof receiversOf>>])[]
  try {
    ;[subscriptions] = await together(() =>
      Promise.all([
        Promise.all(boardIds.map(async (b) => [b, await receiversOf(tx.q, b)] as const)),
        hooked.length > 0 &&
          deps.onEvents(
            deps,
            tx,
            hooked.map(({ id, event, data }) => ({ id, name: event.name, boardId: event.boardId, data, chain: event.actor.chain ?? [] })),
          ),
      ]),
    )
  } finally {
    hookEmits.delete(tx.q)
  }
  const ofBoard = new Map(subscriptions)
  // After those reads, so that in a transaction that ends here (a cascade's chunk) the rows go with its COMMIT, where
  // PostgreSQL numbers them as it inserts them (src/db/postgres.ts). Nothing reads them back in the transaction.
  for (let i = 0; i < written.length; i += ROWS_PER_INSERT) {
    await insertEvents(
      tx.q,
      written.slice(i, i + ROWS_PER_INSERT).map(({ id, event, dataJson }) => ({
        id,
        name: event.name,
        boardId: event.boardId,
        data: dataJson,
        at: timestamp,
        audience: event.audience ?? null,
      })),
    )
  }
  const deliveries: OutboxRow[] = []
  for (const { id, event, dataJson } of written) {
    for (const webhookId of subscriptionsOf(ofBoard.get(event.boardId)!, event.name, event.audience)) {
      deliveries.push(deliveryRow({ webhookId, eventId: id, boardId: event.boardId, event: event.name, timestamp, dataJson, dueAt: now, createdAt: timestamp }))
    }
  }
  if (deliveries.length === 1) await insertOutboxRow(tx.q, deliveries[0])
  else for (let i = 0; i < deliveries.length; i += ROWS_PER_INSERT) await insertOutboxRows(tx.q, deliveries.slice(i, i + ROWS_PER_INSERT))
  if (deliveries.length > 0) {
    tx.afterCommit(deps.onOutboxWrite)
    // The outboxes of other processes on the database too (PostgreSQL), named by subscription.
    for (const d of deliveries) tx.wake('outbox', d.webhook_id)
  }
  // A change feed (in this process, and in the others through the events channel) hears which boards changed.
  const boards = new Set(written.map(({ event }) => event.boardId ?? WORKSPACE))
  for (const board of boards) tx.wake('events', board)
  tx.afterCommit(() => deps.db.wakes.deliver('events', [...boards]))
  for (const events of caused) await writeEvents(deps, tx, events)
}
