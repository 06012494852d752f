// Subscription queries used by emit and delivery.
import { sql as rawSql } from 'kysely'
import type { Sql } from '../db/sql.js'
import { qb } from '../db/sql.js'
import { matchesSelectors } from '../events/catalog.js'

/**
 * Active subscriptions that should receive an event of this board: whole-workspace ones, or ones naming
 * the board, whose creator is an owner/admin or still a member of the board.
 */
export function subscriptionsForEvent(sql: Sql, event: string, boardId: string | null): string[] {
  const rows = sql.all(
    qb.selectFrom('webhooks').innerJoin('users', 'users.id', 'webhooks.created_by')
      .select(['webhooks.id', 'webhooks.events'])
      .where('webhooks.active', '=', 1)
      .where(rawSql<boolean>`(
        NOT EXISTS (SELECT 1 FROM webhook_boards wb WHERE wb.webhook_id = webhooks.id)
        OR EXISTS (SELECT 1 FROM webhook_boards wb WHERE wb.webhook_id = webhooks.id AND wb.board_id = ${boardId}))`)
      .where(rawSql<boolean>`(users.role IN ('owner', 'admin')
        OR EXISTS (SELECT 1 FROM board_members bm WHERE bm.board_id = ${boardId} AND bm.user_id = webhooks.created_by))`),
  )
  return rows.filter((r) => matchesSelectors(JSON.parse(r.events) as string[], event)).map((r) => r.id)
}
