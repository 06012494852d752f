// Queries of the delivery pipeline: claim due outbox rows under a lease, settle attempts, keep the newest logs,
// and read the subscriptions (with their boards and creators) that claimed rows are judged against.
import { sql as rawSql } from 'kysely'
import type { Sql } from '../db/sql.js'
import { qb } from '../db/sql.js'
import type { OutboxTable, UsersTable, WebhookLogsTable, WebhooksTable } from '../db/types.js'

export const LOGS_KEPT = 25

// `+status` keeps SQLite on the primary key for id lookups: with a plain `status =` it picks the partial
// outbox_due index and walks every pending row, which costs milliseconds once a backlog builds up.
const stillPending = rawSql<boolean>`+status = 'pending'`

/**
 * Reserves up to `limit` due rows until `leaseUntil`, oldest due first, in one statement: a row whose
 * lease passed (its process died mid-attempt) is due again, so nothing claimed is ever lost.
 */
export function claimDueRows(sql: Sql, now: number, leaseUntil: number, limit: number): OutboxTable[] {
  if (limit <= 0) return []
  const due = qb
    .selectFrom('outbox')
    .select('id')
    .where('status', '=', 'pending')
    .where('due_at', '<=', now)
    .where('lease_until', '<=', now)
    .orderBy('due_at')
    .limit(limit)
  // A plain read first: an idle poll then never takes the write lock, which other connections (backup, CLI) would wait on.
  if (sql.first(due.limit(1)) === undefined) return []
  return sql.tx(() => sql.all(qb.updateTable('outbox').set({ lease_until: leaseUntil }).where('id', 'in', due).returningAll()))
}

/** The next due time after `now` of an unclaimed row, so the scheduler can wake for it instead of waiting for a poll. */
export const nextDueAfter = (sql: Sql, now: number): number | undefined =>
  sql.first(
    qb
      .selectFrom('outbox')
      .select((eb) => eb.fn.min('due_at').as('t'))
      .where('status', '=', 'pending')
      .where('due_at', '>', now),
  )?.t ?? undefined

/**
 * Settles attempts that share an outcome (and, for retries, a due time) in one statement; only still-pending rows
 * change, so a late writer cannot undo a final state. Returns the ids that changed: a missing id went with its subscription.
 */
export function settleOutboxRows(sql: Sql, ids: readonly string[], status: OutboxTable['status'], dueAt?: number): string[] {
  if (ids.length === 0) return []
  const set = { status, lease_until: 0, ...(dueAt !== undefined ? { due_at: dueAt } : {}) }
  return sql
    .all(
      qb
        .updateTable('outbox')
        .set((eb) => ({ ...set, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', [...ids])
        .where(stillPending)
        .returning('id'),
    )
    .map((r) => r.id)
}

/** Finished rows are only history (their bodies live on in the logs); old ones are removed so the table stays small. */
export const purgeFinishedRows = (sql: Sql, beforeIso: string) =>
  sql.run(qb.deleteFrom('outbox').where('status', '<>', 'pending').where('created_at', '<', beforeIso))

/** Appends attempts to their subscriptions' logs in one statement; seq orders each subscription's log. */
export function insertLogs(sql: Sql, rows: readonly Omit<WebhookLogsTable, 'seq'>[]): void {
  if (rows.length === 0) return
  const next = new Map<string, number>()
  const values = rows.map((row) => {
    const seq = next.get(row.webhook_id) ?? lastLogSeq(sql, row.webhook_id) + 1
    next.set(row.webhook_id, seq + 1)
    return { ...row, seq }
  })
  sql.run(qb.insertInto('webhook_logs').values(values))
}

const lastLogSeq = (sql: Sql, webhookId: string): number =>
  sql.first(qb.selectFrom('webhook_logs').select('seq').where('webhook_id', '=', webhookId).orderBy('seq', 'desc').limit(1))?.seq ?? 0

/** Keeps the newest LOGS_KEPT attempts of a subscription. */
export function pruneLogs(sql: Sql, webhookId: string): void {
  const cutoff = qb.selectFrom('webhook_logs').select('seq').where('webhook_id', '=', webhookId).orderBy('seq', 'desc').limit(1).offset(LOGS_KEPT)
  sql.run(qb.deleteFrom('webhook_logs').where('webhook_id', '=', webhookId).where('seq', '<=', cutoff))
}

export const listLogs = (sql: Sql, webhookId: string): WebhookLogsTable[] =>
  sql.all(qb.selectFrom('webhook_logs').selectAll().where('webhook_id', '=', webhookId).orderBy('seq', 'desc').limit(LOGS_KEPT))

/** Gives back claims that never started (shutdown), so the next process sends them at once instead of after the lease. */
export const releaseLeases = (sql: Sql, ids: readonly string[]) =>
  ids.length === 0
    ? 0
    : sql.run(
        qb
          .updateTable('outbox')
          .set({ lease_until: 0 })
          .where('id', 'in', [...ids])
          .where(stillPending),
      )

export const getWebhooks = (sql: Sql, ids: readonly string[]): WebhooksTable[] =>
  ids.length === 0
    ? []
    : sql.all(
        qb
          .selectFrom('webhooks')
          .selectAll()
          .where('id', 'in', [...new Set(ids)]),
      )

/** Board ids of several subscriptions in one query (no N+1 on a page). */
export function boardsOfWebhooks(sql: Sql, webhookIds: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>()
  if (webhookIds.length === 0) return out
  const rows = sql.all(
    qb
      .selectFrom('webhook_boards')
      .select(['webhook_id', 'board_id'])
      .where('webhook_id', 'in', [...new Set(webhookIds)])
      .orderBy('board_id'),
  )
  for (const r of rows) (out.get(r.webhook_id) ?? out.set(r.webhook_id, []).get(r.webhook_id)!).push(r.board_id)
  return out
}

export const setLastDelivery = (sql: Sql, id: string, mark: { status_code: number | null; outcome: string; at: string }) =>
  sql.run(qb.updateTable('webhooks').set({ last_status_code: mark.status_code, last_outcome: mark.outcome, last_at: mark.at }).where('id', '=', id))

/** Which of these (board, user) pairs are memberships, for a whole batch of deliveries in one query. */
export function membershipPairs(sql: Sql, pairs: readonly { boardId: string; userId: string }[]): Set<string> {
  if (pairs.length === 0) return new Set()
  const rows = sql.all(
    qb
      .selectFrom('board_members')
      .select(['board_id', 'user_id'])
      .where('board_id', 'in', [...new Set(pairs.map((p) => p.boardId))])
      .where('user_id', 'in', [...new Set(pairs.map((p) => p.userId))]),
  )
  return new Set(rows.map((r) => membershipKey(r.board_id, r.user_id)))
}
export const membershipKey = (boardId: string, userId: string): string => `${boardId}\u0000${userId}`

/** Roles of the creators of several subscriptions, in one query. */
export const creatorRoles = (sql: Sql, userIds: readonly string[]): Map<string, UsersTable['role']> =>
  new Map(
    userIds.length === 0
      ? []
      : sql
          .all(
            qb
              .selectFrom('users')
              .select(['id', 'role'])
              .where('id', 'in', [...new Set(userIds)]),
          )
          .map((u) => [u.id, u.role]),
  )
