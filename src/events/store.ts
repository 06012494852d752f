// Event rows (the history samples read) and the outbox rows an event fans out to, one per receiving subscription.
import { sql as rawSql } from 'kysely'
import { ADMIN_ROLES } from '../access/roles.js'
import { later, type Q, readAhead, readOnce } from '../db/database.js'
import type { DB } from '../db/types.js'
import { insertEventRows } from '../db/dialect.js'
import { fixedQuery, literal, rowInsert, rowsOf } from '../db/sql.js'
import { matchesSelectors } from './names.js'
import { fromJsonColumn, StringList } from '../db/json.js'

/**
 * Appends events in their order, in one statement; seq orders the events as written, commit_seq as committed (the change
 * feed's order); `audience`: the one user who may see the event, if only one may.
 */
export const insertEvents = (
  q: Q,
  rows: readonly { id: string; name: string; boardId: string | null; data: string; at: string; audience?: string | null }[],
): Promise<void> =>
  insertEventRows(
    q,
    rows.map((r) => ({ id: r.id, name: r.name, board_id: r.boardId, data: r.data, created_at: r.at, audience_id: r.audience ?? null })),
  )

export type OutboxRow = DB['outbox']
const insertOutbox = rowInsert('outbox')
/** An outbox row, sent with the transaction's next statement (`later`). */
export const insertOutboxRow = (q: Q, row: OutboxRow) => insertOutbox(q, row, 'later')
/** Many outbox rows in one statement, sent with the transaction's next statement. */
export const insertOutboxRows = (q: Q, rows: readonly OutboxRow[]): Promise<void> => later(q, q.insertInto('outbox').values([...rows]))

/**
 * Active subscriptions that should receive an event of this board: whole-workspace ones, or ones naming
 * the board, whose creator is an owner/admin or still a member of the board.
 */
const receivers = fixedQuery((q: Q, boardId: string | null) =>
  q
    .selectFrom('webhooks')
    .innerJoin('users', 'users.id', 'webhooks.created_by')
    .select(['webhooks.id', 'webhooks.events', 'webhooks.created_by'])
    .where('webhooks.active', '=', literal(1))
    .where(
      rawSql<boolean>`(
        webhooks.all_boards = 1
        OR EXISTS (SELECT 1 FROM webhook_boards wb WHERE wb.webhook_id = webhooks.id AND wb.board_id = ${boardId}))`,
    )
    .where(
      rawSql<boolean>`(users.role IN (${rawSql.join(ADMIN_ROLES.map(literal))})
        OR EXISTS (SELECT 1 FROM board_members bm WHERE bm.board_id = ${boardId} AND bm.user_id = webhooks.created_by))`,
    ),
)

/**
 * The active subscriptions that may receive events of a board (receiversOf), read once per transaction when a change
 * started the read ahead (readAheadReceivers).
 */
export const receiversOf = (q: Q, boardId: string | null) => readOnce(q, `receivers:${boardId ?? ''}`, () => rowsOf(q, receivers(q, boardId)))
/** Starts the read of a board's subscriptions beside other reads, for the events the transaction will write. */
export const readAheadReceivers = (q: Q, boardId: string | null) => readAhead(q, `receivers:${boardId ?? ''}`, () => rowsOf(q, receivers(q, boardId)))

/** Of a board's subscriptions (receiversOf), those that receive an event; with an `audience`, only those that user made. */
export const subscriptionsOf = (rows: readonly { id: string; events: string; created_by: string }[], event: string, audience?: string): string[] =>
  rows.filter((r) => (audience === undefined || r.created_by === audience) && matchesSelectors(fromJsonColumn(StringList, r.events), event)).map((r) => r.id)

/** The subscriptions that receive an event of a board; with an `audience`, only those that user made. */
export const subscriptionsForEvent = async (q: Q, event: string, boardId: string | null, audience?: string): Promise<string[]> =>
  subscriptionsOf(await receiversOf(q, boardId), event, audience)
