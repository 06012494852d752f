// Time entry queries; a user has at most one running entry (no ended_at), which the database keeps too.
import { sql } from 'kysely'
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { forUpdate } from '../../db/dialect.js'
import type { TimeEntriesTable } from '../../db/types.js'

export const getEntry = (q: Q, id: string) => q.selectFrom('time_entries').selectAll().where('id', '=', id).executeTakeFirst()
/** An entry about to change, locked until the transaction ends (PostgreSQL), so an edit and a stop take turns. */
export const lockEntry = (q: Q, id: string) => forUpdate(q, q.selectFrom('time_entries').selectAll().where('id', '=', id)).executeTakeFirst()
export const insertEntry = (q: Q, row: TimeEntriesTable) => q.insertInto('time_entries').values(row).execute()
export const updateEntryRow = (q: Q, id: string, set: Partial<TimeEntriesTable>) => q.updateTable('time_entries').set(set).where('id', '=', id).execute()
export const deleteEntryRow = (q: Q, id: string) => q.deleteFrom('time_entries').where('id', '=', id).execute()
/** Ends a running entry; false when it had ended already (a stop at the same time). */
export const endEntry = async (q: Q, id: string, set: Pick<TimeEntriesTable, 'ended_at' | 'duration_seconds' | 'updated_at'>): Promise<boolean> =>
  Number(
    (
      await q
        .updateTable('time_entries')
        .set({ ended_at: set.ended_at, duration_seconds: set.duration_seconds, updated_at: set.updated_at })
        .where('id', '=', id)
        .where('ended_at', 'is', null)
        .executeTakeFirst()
    ).numUpdatedRows,
  ) > 0
export const runningEntryOf = (q: Q, userId: string) =>
  q.selectFrom('time_entries').selectAll().where('user_id', '=', userId).where('ended_at', 'is', null).executeTakeFirst()

/** Base query of the time entry list: the entries on cards of the boards a user sees (none in the trash), optionally of one card. */
export function visibleEntriesQuery(q: Q, viewer: Viewer, cardId?: string) {
  const query = q.selectFrom('time_entries').innerJoin('cards', 'cards.id', 'time_entries.card_id').where('cards.board_id', 'in', visibleBoardIds(q, viewer))
  return cardId ? query.where('time_entries.card_id', '=', cardId) : query
}

const day = sql<string>`substr(time_entries.started_at, 1, 10)`

/** Sums of the finished entries of `base` (a filtered visible-entries query) per user and UTC day of their start, and per card when asked. */
export const totalsQuery = (base: ReturnType<typeof visibleEntriesQuery>, byCard: boolean) =>
  base
    .where('time_entries.ended_at', 'is not', null)
    .select([
      'time_entries.user_id',
      day.as('day'),
      sql<number>`sum(time_entries.duration_seconds)`.as('seconds'),
      sql<number>`sum(time_entries.duration_seconds * time_entries.billable)`.as('billable_seconds'),
    ])
    .groupBy(['time_entries.user_id', day])
    .$if(byCard, (qb) => qb.select('time_entries.card_id').groupBy('time_entries.card_id'))
