// Subscription queries: rows and their boards, pausing by board, and the events a sample is taken from.
import { sql as rawSql } from 'kysely'
import { memberBoardIds } from '../../access/visibility.js'
import type { Sql } from '../../db/sql.js'
import { qb } from '../../db/sql.js'
import type { EventsTable, WebhooksTable } from '../../db/types.js'

export const getWebhook = (sql: Sql, id: string) => sql.first(qb.selectFrom('webhooks').selectAll().where('id', '=', id))
export const insertWebhook = (sql: Sql, row: WebhooksTable) => sql.run(qb.insertInto('webhooks').values(row))
export const updateWebhookRow = (sql: Sql, id: string, set: Partial<WebhooksTable>) => sql.run(qb.updateTable('webhooks').set(set).where('id', '=', id))
export const deleteWebhookRow = (sql: Sql, id: string) => sql.run(qb.deleteFrom('webhooks').where('id', '=', id))

export function setWebhookBoards(sql: Sql, webhookId: string, boardIds: readonly string[]): void {
  sql.run(qb.deleteFrom('webhook_boards').where('webhook_id', '=', webhookId))
  if (boardIds.length) sql.run(qb.insertInto('webhook_boards').values(boardIds.map((board_id) => ({ webhook_id: webhookId, board_id }))))
}

/** Pauses the subscriptions that name this board and no other, before the board (and their link to it) is deleted. */
export const pauseSubscriptionsOnlyOn = (sql: Sql, boardId: string, at: string) =>
  sql.run(
    qb
      .updateTable('webhooks')
      .set({ active: 0, updated_at: at })
      .where('all_boards', '=', 0)
      .where('id', 'in', qb.selectFrom('webhook_boards').select('webhook_id').where('board_id', '=', boardId))
      .where(rawSql<boolean>`NOT EXISTS (SELECT 1 FROM webhook_boards other WHERE other.webhook_id = webhooks.id AND other.board_id != ${boardId})`),
  )

/** Base query of the subscription list: one creator's subscriptions, or every one. */
export const webhooksQuery = (creatorId?: string) =>
  creatorId ? qb.selectFrom('webhooks').where('webhooks.created_by', '=', creatorId) : qb.selectFrom('webhooks')

/** The newest event among `names`, on `boards` unless null (every board), and on boards `memberOf` belongs to unless undefined. */
export function newestEvent(sql: Sql, names: readonly string[], boards: readonly string[] | null, memberOf?: string): EventsTable | undefined {
  let q = qb
    .selectFrom('events')
    .selectAll()
    .where('name', 'in', [...names])
  if (boards) q = q.where('board_id', 'in', [...boards])
  if (memberOf !== undefined) q = q.where('board_id', 'in', memberBoardIds(memberOf))
  return sql.first(q.orderBy('seq', 'desc').limit(1))
}

/** Recent events of the boards a user belongs to (and, with `workspaceWide`, events of no board), newest first. */
export function recentEvents(sql: Sql, userId: string, workspaceWide: boolean, event: string | undefined, limit: number): EventsTable[] {
  let q = qb
    .selectFrom('events')
    .selectAll()
    .where((eb) => eb.or([eb('board_id', 'in', memberBoardIds(userId)), ...(workspaceWide ? [eb('board_id', 'is', null)] : [])]))
  if (event !== undefined) q = q.where('name', '=', event)
  return sql.all(q.orderBy('seq', 'desc').limit(limit))
}
