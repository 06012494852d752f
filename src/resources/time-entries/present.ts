// Time entries in API shape (their users' names in one query for a page), and the `data` of timer events.
import type { Q } from '../../db/database.js'
import type { TimeEntriesTable } from '../../db/types.js'
import type { UserRef } from '../../http/schemas.js'
import { userRefsOf } from '../users/present.js'
import type { TimeEntryView } from './schema.js'
import type { EventData } from '../../events/fields.js'

/** Whole seconds of an entry; of a running one, until `now` (ms). */
export const secondsOf = (e: TimeEntriesTable, now: number): number => e.duration_seconds ?? Math.max(0, Math.floor((now - Date.parse(e.started_at)) / 1000))

const entryView = (e: TimeEntriesTable, user: UserRef, now: number): TimeEntryView => ({
  id: e.id,
  card: e.card_id,
  user,
  started_at: e.started_at,
  ended_at: e.ended_at,
  duration_seconds: secondsOf(e, now),
  note: e.note,
  billable: e.billable === 1,
  created: e.created_at,
  updated: e.updated_at,
})

export async function entryViews(q: Q, rows: readonly TimeEntriesTable[], now: number): Promise<TimeEntryView[]> {
  const user = await userRefsOf(
    q,
    rows.map((r) => r.user_id),
  )
  return rows.map((r) => entryView(r, user(r.user_id), now))
}

/** A timer event's own fields (the task and board references are added beside them). */
export const timerEventData = (e: TimeEntriesTable, user: UserRef, now: number): Omit<EventData<'timer.started'>, 'card' | 'board'> => {
  const { id, started_at, ended_at, duration_seconds, note, billable } = entryView(e, user, now)
  return { id, user, started_at, ended_at, duration_seconds, note, billable }
}
