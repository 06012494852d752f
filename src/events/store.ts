// Event rows (the history samples read) and the outbox rows an event fans out to, one per receiving subscription.
import { sql as rawSql } from 'kysely'
import { ADMIN_ROLES } from '../access/roles.js'
import type { Sql } from '../db/sql.js'
import { fixedQuery, qb } from '../db/sql.js'
import type { OutboxTable } from '../db/types.js'
import { matchesSelectors } from './names.js'

const insert = fixedQuery((id: string, name: string, boardId: string | null, data: string, at: string) =>
  qb.insertInto('events').values({ id, name, board_id: boardId, data, created_at: at, seq: rawSql<number>`(SELECT COALESCE(MAX(seq), 0) + 1 FROM events)` }),
)

/** Appends an event; seq orders the events. */
export const insertEvent = (sql: Sql, id: string, name: string, boardId: string | null, data: string, at: string) =>
  sql.run(insert(id, name, boardId, data, at))

export const insertOutboxRow = (sql: Sql, row: OutboxTable) => sql.run(qb.insertInto('outbox').values(row))

/**
 * Active subscriptions that should receive an event of this board: whole-workspace ones, or ones naming
 * the board, whose creator is an owner/admin or still a member of the board.
 */
const receivers = fixedQuery((boardId: string | null) =>
  qb.selectFrom('webhooks').innerJoin('users', 'users.id', 'webhooks.created_by').select(['webhooks.id', 'webhooks.events']).where('webhooks.active', '=', 1)
    .where(rawSql<boolean>`(
        webhooks.all_boards = 1
        OR EXISTS (SELECT 1 FROM webhook_boards wb WHERE wb.webhook_id = webhooks.id AND wb.board_id = ${boardId}))`)
    .where(rawSql<boolean>`(users.role IN (${rawSql.join([...ADMIN_ROLES])})
        OR EXISTS (SELECT 1 FROM board_members bm WHERE bm.board_id = ${boardId} AND bm.user_id = webhooks.created_by))`),
)

export function subscriptionsForEvent(sql: Sql, event: string, boardId: string | null): string[] {
  const rows = sql.all(receivers(boardId))
  return rows.filter((r) => matchesSelectors(JSON.parse(r.events) as string[], event)).map((r) => r.id)
}
