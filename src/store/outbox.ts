// Outbox and delivery-log queries: claim due rows under a lease, settle attempts, keep the newest logs.
import { sql as rawSql } from 'kysely'
import type { Sql } from '../db/sql.js'
import { qb } from '../db/sql.js'
import type { OutboxTable, WebhookLogsTable } from '../db/types.js'

export const LOGS_KEPT = 25

export const insertOutboxRow = (sql: Sql, row: OutboxTable) => sql.run(qb.insertInto('outbox').values(row))
export const getOutboxRow = (sql: Sql, id: string) => sql.first(qb.selectFrom('outbox').selectAll().where('id', '=', id))

/**
 * Reserves up to `limit` due rows until `leaseUntil`, oldest due first, in one statement: a row whose
 * lease passed (its process died mid-attempt) is due again, so nothing claimed is ever lost.
 */
export function claimDueRows(sql: Sql, now: number, leaseUntil: number, limit: number): OutboxTable[] {
  if (limit <= 0) return []
  const due = qb.selectFrom('outbox').select('id')
    .where('status', '=', 'pending').where('due_at', '<=', now).where('lease_until', '<=', now)
    .orderBy('due_at').limit(limit)
  return sql.tx(() => sql.all(qb.updateTable('outbox').set({ lease_until: leaseUntil }).where('id', 'in', due).returningAll()))
}

/** The next due time after `now` of an unclaimed row, so the scheduler can wake for it instead of waiting for a poll. */
export const nextDueAfter = (sql: Sql, now: number): number | undefined =>
  sql.first(qb.selectFrom('outbox').select((eb) => eb.fn.min('due_at').as('t')).where('status', '=', 'pending').where('due_at', '>', now))?.t ?? undefined

/** Settles one attempt; only a still-pending row changes, so a late writer cannot undo a final state. */
export const settleOutboxRow = (sql: Sql, id: string, set: Pick<OutboxTable, 'status' | 'attempts' | 'due_at'>) =>
  sql.run(qb.updateTable('outbox').set({ ...set, lease_until: 0 }).where('id', '=', id).where('status', '=', 'pending'))

/** Finished rows are only history (their bodies live on in the logs); old ones are removed so the table stays small. */
export const purgeFinishedRows = (sql: Sql, beforeIso: string) =>
  sql.run(qb.deleteFrom('outbox').where('status', '<>', 'pending').where('created_at', '<', beforeIso))

export function insertLog(sql: Sql, row: Omit<WebhookLogsTable, 'seq'>): void {
  sql.run(qb.insertInto('webhook_logs').values({
    ...row, seq: rawSql<number>`(SELECT COALESCE(MAX(seq), 0) + 1 FROM webhook_logs WHERE webhook_id = ${row.webhook_id})`,
  }))
}

/** Keeps the newest LOGS_KEPT attempts of a subscription. */
export function pruneLogs(sql: Sql, webhookId: string): void {
  const cutoff = qb.selectFrom('webhook_logs').select('seq').where('webhook_id', '=', webhookId).orderBy('seq', 'desc').limit(1).offset(LOGS_KEPT)
  sql.run(qb.deleteFrom('webhook_logs').where('webhook_id', '=', webhookId).where('seq', '<=', cutoff))
}

export const listLogs = (sql: Sql, webhookId: string): WebhookLogsTable[] =>
  sql.all(qb.selectFrom('webhook_logs').selectAll().where('webhook_id', '=', webhookId).orderBy('seq', 'desc').limit(LOGS_KEPT))

/** Gives back claims that never started (shutdown), so the next process sends them at once instead of after the lease. */
export const releaseLeases = (sql: Sql, ids: readonly string[]) =>
  ids.length === 0 ? 0 : sql.run(qb.updateTable('outbox').set({ lease_until: 0 }).where('id', 'in', [...ids]).where('status', '=', 'pending'))
