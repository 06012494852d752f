// Subscription queries: rows, their boards, last-delivery marks, and who receives an event.
import { sql as rawSql } from 'kysely'
import type { Sql } from '../db/sql.js'
import { fixedQuery, qb } from '../db/sql.js'
import type { WebhooksTable } from '../db/types.js'
import { matchesSelectors } from '../events/catalog.js'

export const getWebhook = (sql: Sql, id: string) => sql.first(qb.selectFrom('webhooks').selectAll().where('id', '=', id))
export const getWebhooks = (sql: Sql, ids: readonly string[]): WebhooksTable[] =>
  ids.length === 0 ? [] : sql.all(qb.selectFrom('webhooks').selectAll().where('id', 'in', [...new Set(ids)]))
export const insertWebhook = (sql: Sql, row: WebhooksTable) => sql.run(qb.insertInto('webhooks').values(row))
export const updateWebhookRow = (sql: Sql, id: string, set: Partial<WebhooksTable>) => sql.run(qb.updateTable('webhooks').set(set).where('id', '=', id))
export const deleteWebhookRow = (sql: Sql, id: string) => sql.run(qb.deleteFrom('webhooks').where('id', '=', id))

export function setWebhookBoards(sql: Sql, webhookId: string, boardIds: readonly string[]): void {
  sql.run(qb.deleteFrom('webhook_boards').where('webhook_id', '=', webhookId))
  if (boardIds.length) sql.run(qb.insertInto('webhook_boards').values(boardIds.map((board_id) => ({ webhook_id: webhookId, board_id }))))
}

/** Board ids of several subscriptions in one query (no N+1 on a page). */
export function boardsOfWebhooks(sql: Sql, webhookIds: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>()
  if (webhookIds.length === 0) return out
  const rows = sql.all(qb.selectFrom('webhook_boards').select(['webhook_id', 'board_id']).where('webhook_id', 'in', [...new Set(webhookIds)]).orderBy('board_id'))
  for (const r of rows) (out.get(r.webhook_id) ?? out.set(r.webhook_id, []).get(r.webhook_id)!).push(r.board_id)
  return out
}

export const setLastDelivery = (sql: Sql, id: string, mark: { status_code: number | null; outcome: string; at: string }) =>
  sql.run(qb.updateTable('webhooks').set({ last_status_code: mark.status_code, last_outcome: mark.outcome, last_at: mark.at }).where('id', '=', id))

/**
 * Active subscriptions that should receive an event of this board: whole-workspace ones, or ones naming
 * the board, whose creator is an owner/admin or still a member of the board.
 */
const receivers = fixedQuery((boardId: string | null) =>
    qb.selectFrom('webhooks').innerJoin('users', 'users.id', 'webhooks.created_by')
      .select(['webhooks.id', 'webhooks.events'])
      .where('webhooks.active', '=', 1)
      .where(rawSql<boolean>`(
        webhooks.all_boards = 1
        OR EXISTS (SELECT 1 FROM webhook_boards wb WHERE wb.webhook_id = webhooks.id AND wb.board_id = ${boardId}))`)
      .where(rawSql<boolean>`(users.role IN ('owner', 'admin')
        OR EXISTS (SELECT 1 FROM board_members bm WHERE bm.board_id = ${boardId} AND bm.user_id = webhooks.created_by))`))

export function subscriptionsForEvent(sql: Sql, event: string, boardId: string | null): string[] {
  const rows = sql.all(receivers(boardId))
  return rows.filter((r) => matchesSelectors(JSON.parse(r.events) as string[], event)).map((r) => r.id)
}

/** Which of these (board, user) pairs are memberships, for a whole batch of deliveries in one query. */
export function membershipPairs(sql: Sql, pairs: readonly { boardId: string; userId: string }[]): Set<string> {
  if (pairs.length === 0) return new Set()
  const rows = sql.all(qb.selectFrom('board_members').select(['board_id', 'user_id'])
    .where('board_id', 'in', [...new Set(pairs.map((p) => p.boardId))]).where('user_id', 'in', [...new Set(pairs.map((p) => p.userId))]))
  return new Set(rows.map((r) => membershipKey(r.board_id, r.user_id)))
}
export const membershipKey = (boardId: string, userId: string): string => `${boardId}\u0000${userId}`

/** Pauses the subscriptions that name this board and no other, before the board (and their link to it) is deleted. */
export const pauseSubscriptionsOnlyOn = (sql: Sql, boardId: string, at: string) =>
  sql.run(qb.updateTable('webhooks').set({ active: 0, updated_at: at }).where('all_boards', '=', 0)
    .where('id', 'in', qb.selectFrom('webhook_boards').select('webhook_id').where('board_id', '=', boardId))
    .where(rawSql<boolean>`NOT EXISTS (SELECT 1 FROM webhook_boards other WHERE other.webhook_id = webhooks.id AND other.board_id != ${boardId})`))

/** Base query of the subscription list: one creator's subscriptions, or every one. */
export const webhooksQuery = (creatorId?: string) => (creatorId ? qb.selectFrom('webhooks').where('webhooks.created_by', '=', creatorId) : qb.selectFrom('webhooks'))
