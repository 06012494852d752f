// Queries of the delivery pipeline: claim due outbox rows under a lease, settle attempts, keep the newest logs,
// and read the subscriptions (with their boards and creators) that claimed rows are judged against.
import type { Q } from '../db/database.js'
import { skipLocked } from '../db/dialect.js'
import { literal, rowInsert, rowsByIds } from '../db/sql.js'
import type { OutboxTable, UsersTable, WebhookLogsTable } from '../db/types.js'

export const LOGS_KEPT = 25

/** Whether any subscription is active (the sending thread is started ahead of the first event only then). */
export async function anyActiveWebhook(q: Q): Promise<boolean> {
  return (await q.selectFrom('webhooks').select('id').where('active', '=', 1).limit(1).executeTakeFirst()) !== undefined
}

/** Pending rows due at `now` whose lease has run out (a row leased until t is still held at t), oldest due first. */
const dueRows = (q: Q, now: number) =>
  q.selectFrom('outbox').select('id').where('status', '=', literal('pending')).where('due_at', '<=', now).where('lease_until', '<', now).orderBy('due_at')

/** Whether a row is due: a plain read, so an idle poll never takes the write lock. */
export const anyDueRow = async (q: Q, now: number): Promise<boolean> => (await dueRows(q, now).limit(1).executeTakeFirst()) !== undefined

/**
 * Reserves up to `limit` due rows until `leaseUntil`, oldest due first, in one statement: a row whose
 * lease passed (its process died mid-attempt) is due again, so nothing claimed is ever lost. With several processes
 * (PostgreSQL), each skips the rows another is claiming at that moment, and the lease check is repeated on the row it
 * updates, so no row is ever claimed twice.
 */
export async function claimDueRows(q: Q, now: number, leaseUntil: number, limit: number): Promise<OutboxTable[]> {
  if (limit <= 0) return []
  const rows = await q
    .updateTable('outbox')
    .set({ lease_until: leaseUntil })
    .where('id', 'in', skipLocked(q, dueRows(q, now).limit(limit)))
    .where('lease_until', '<', now)
    .returningAll()
    .execute()
  // RETURNING keeps no order: the rows start in due order (then queued order), so a replay goes out as it was queued.
  return rows.sort((a, b) => a.due_at - b.due_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** The next due time after `now` of an unclaimed row, so the scheduler can wake for it instead of waiting for a poll. */
export const nextDueAfter = async (q: Q, now: number): Promise<number | undefined> =>
  (
    await q
      .selectFrom('outbox')
      .select((eb) => eb.fn.min('due_at').as('t'))
      .where('status', '=', literal('pending'))
      .where('due_at', '>', now)
      .executeTakeFirst()
  )?.t ?? undefined

/**
 * Settles attempts that share an outcome (and, for retries, a due time) in one statement; only still-pending rows
 * change, so a late writer cannot undo a final state. Returns the ids that changed: a missing id went with its subscription.
 */
export async function settleOutboxRows(q: Q, ids: readonly string[], status: OutboxTable['status'], dueAt?: number): Promise<string[]> {
  if (ids.length === 0) return []
  const set = { status, lease_until: 0, ...(dueAt !== undefined ? { due_at: dueAt } : {}) }
  const rows = await q
    .updateTable('outbox')
    .set((eb) => ({ ...set, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', [...ids])
    // A parameter, not a literal: SQLite then keeps to the primary key. With `status = 'pending'` in the SQL it would take
    // the partial outbox_due index and walk every pending row, milliseconds once a backlog builds up.
    .where('status', '=', 'pending')
    .returning('id')
    .execute()
  return rows.map((r) => r.id)
}

/** Finished rows are only history (their bodies live on in the logs); old ones are removed so the table stays small. */
export const purgeFinishedRows = (q: Q, beforeIso: string) =>
  q.deleteFrom('outbox').where('status', '<>', literal('pending')).where('created_at', '<', beforeIso).execute()

const insertLog = rowInsert('webhook_logs', 'webhook_id')

/** Appends attempts to their subscriptions' logs, in order; seq orders each subscription's log. */
export async function insertLogs(q: Q, rows: readonly Omit<WebhookLogsTable, 'seq'>[]): Promise<void> {
  for (const row of rows) await insertLog(q, row)
}

/** Keeps the newest LOGS_KEPT attempts of a subscription. */
export async function pruneLogs(q: Q, webhookId: string): Promise<void> {
  const cutoff = q.selectFrom('webhook_logs').select('seq').where('webhook_id', '=', webhookId).orderBy('seq', 'desc').limit(1).offset(LOGS_KEPT)
  await q.deleteFrom('webhook_logs').where('webhook_id', '=', webhookId).where('seq', '<=', cutoff).execute()
}

export const listLogs = (q: Q, webhookId: string): Promise<WebhookLogsTable[]> =>
  q.selectFrom('webhook_logs').selectAll().where('webhook_id', '=', webhookId).orderBy('seq', 'desc').limit(LOGS_KEPT).execute()

/** Gives back claims that never started (shutdown), so the next process sends them at once instead of after the lease. */
export async function releaseLeases(q: Q, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return
  await q
    .updateTable('outbox')
    .set({ lease_until: 0 })
    .where('id', 'in', [...ids])
    .where('status', '=', 'pending') // a parameter, as in settleOutboxRows
    .execute()
}

export const getWebhooks = (q: Q, ids: readonly string[]) => rowsByIds(q, 'webhooks', ids)

/** Which of these boards still exist (a board deleted for good is gone; one in the trash is not). */
export const existingBoards = async (q: Q, boardIds: readonly string[]): Promise<Set<string>> =>
  boardIds.length === 0
    ? new Set()
    : new Set(
        (
          await q
            .selectFrom('boards')
            .select('id')
            .where('id', 'in', [...new Set(boardIds)])
            .execute()
        ).map((b) => b.id),
      )

/** Board ids of several subscriptions in one query (no N+1 on a page). */
export async function boardsOfWebhooks(q: Q, webhookIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  if (webhookIds.length === 0) return out
  const rows = await q
    .selectFrom('webhook_boards')
    .select(['webhook_id', 'board_id'])
    .where('webhook_id', 'in', [...new Set(webhookIds)])
    .orderBy('board_id')
    .execute()
  for (const r of rows) (out.get(r.webhook_id) ?? out.set(r.webhook_id, []).get(r.webhook_id)!).push(r.board_id)
  return out
}

/** The subscription's last attempt, unless a later one is already recorded (another process may record out of order). */
export const setLastDelivery = (q: Q, id: string, mark: { status_code: number | null; outcome: string; at: string }) =>
  q
    .updateTable('webhooks')
    .set({ last_status_code: mark.status_code, last_outcome: mark.outcome, last_at: mark.at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_at', 'is', null), eb('last_at', '<=', mark.at)]))
    .execute()

/** Which of these (board, user) pairs are memberships, for a whole batch of deliveries in one query. */
export async function membershipPairs(q: Q, pairs: readonly { boardId: string; userId: string }[]): Promise<Set<string>> {
  if (pairs.length === 0) return new Set()
  const rows = await q
    .selectFrom('board_members')
    .select(['board_id', 'user_id'])
    .where('board_id', 'in', [...new Set(pairs.map((p) => p.boardId))])
    .where('user_id', 'in', [...new Set(pairs.map((p) => p.userId))])
    .execute()
  return new Set(rows.map((r) => membershipKey(r.board_id, r.user_id)))
}
export const membershipKey = (boardId: string, userId: string): string => `${boardId}\u0000${userId}`

/** Roles of the creators of several subscriptions, in one query. */
export const creatorRoles = async (q: Q, userIds: readonly string[]): Promise<Map<string, UsersTable['role']>> =>
  new Map((await rowsByIds(q, 'users', userIds)).map((u) => [u.id, u.role]))

/** The outbox backlog for /metrics: pending rows, and when the oldest of them was queued (undefined when none). */
export async function outboxBacklog(q: Q): Promise<{ pending: number; oldest: string | undefined }> {
  const row = await q
    .selectFrom('outbox')
    .select((eb) => [eb.fn.countAll<number | string>().as('pending'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', literal('pending'))
    .executeTakeFirstOrThrow()
  return { pending: Number(row.pending), oldest: row.oldest ?? undefined }
}

/** Deliveries still queued for a subscription are given up (a resumed subscription sends nothing from before). */
export const dropPendingDeliveries = (q: Q, webhookId: string) =>
  q.updateTable('outbox').set({ status: 'dropped', lease_until: 0 }).where('webhook_id', '=', webhookId).where('status', '=', 'pending').execute()

/**
 * A subscription's failures since its last success, as one batch of final outcomes leaves them: with a success in the
 * batch, the failures after the last one (`reset`); otherwise added to those before. `since`: when the first of the
 * new failures happened, kept when earlier failures already count.
 */
export async function countFailures(q: Q, webhookId: string, change: { reset: boolean; failures: number; since: string | null }): Promise<void> {
  if (change.reset) {
    await q.updateTable('webhooks').set({ failures: change.failures, failing_since: change.since }).where('id', '=', webhookId).execute()
    return
  }
  await q
    .updateTable('webhooks')
    .set((eb) => ({ failures: eb('failures', '+', change.failures), failing_since: eb.fn.coalesce('failing_since', eb.val(change.since)) }))
    .where('id', '=', webhookId)
    .execute()
}

/**
 * Pauses the active subscriptions among `ids` whose failures reached `maxFailures`, or whose failing started at or
 * before `failingBefore`, as `failing`; returns them as they are now.
 */
export const pauseFailing = (q: Q, ids: readonly string[], maxFailures: number, failingBefore: string, at: string) =>
  ids.length === 0
    ? Promise.resolve([])
    : q
        .updateTable('webhooks')
        .set({ active: 0, paused_reason: 'failing', updated_at: at })
        .where('id', 'in', [...ids])
        .where('active', '=', 1)
        .where((eb) => eb.or([eb('failures', '>=', maxFailures), eb('failing_since', '<=', failingBefore)]))
        .returningAll()
        .execute()
