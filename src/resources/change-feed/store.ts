// Change feed queries over the event log, in commit order (events.commit_seq), and its pruning.
import { sql } from 'kysely'
import { memberBoardIds } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'

/** An event as the feed reads it. */
export interface FeedRow {
  id: string
  name: string
  board_id: string | null
  data: string
  created_at: string
  commit_seq: number
  /** The one user the event is for (a private record's), or null: everyone who receives its board's events. */
  audience_id: string | null
}

const columns = ['id', 'name', 'board_id', 'data', 'created_at', 'commit_seq', 'audience_id'] as const

/**
 * The newest and oldest commit_seq the log holds (null when it is empty): each its own subquery, so each is one step
 * of the index (a single query asking for both would read the whole table on SQLite).
 */
export const logBounds = (q: Q) =>
  q.selectNoFrom([sql<number | null>`(SELECT MAX(commit_seq) FROM events)`.as('head'), sql<number | null>`(SELECT MIN(commit_seq) FROM events)`.as('oldest')])

export interface PageSpec {
  /** Events after this commit_seq... */
  after: number
  /** ...up to this one (the head when the read began: a page never reaches past what was looked at). */
  upTo: number
  /** Only these names; undefined: every event. */
  names?: readonly string[]
  /** Only these boards; undefined: every board (and workspace-wide events). */
  boards?: readonly string[]
  /** Only events of the boards this user is a member of (decided by eventsReceivedOnlyOnBoardsOf); undefined: all. */
  onlyBoardsOf?: string
  /** The reader: events meant for one user only (audience_id) are read by that user alone. */
  reader: string
  limit: number
}

/** A page of the events a reader receives, oldest first. */
export function feedPage(q: Q, spec: PageSpec) {
  let query = q.selectFrom('events').select(columns).where('commit_seq', '>', spec.after).where('commit_seq', '<=', spec.upTo)
  if (spec.names) query = query.where('name', 'in', spec.names.length ? [...spec.names] : [''])
  if (spec.boards) query = query.where('board_id', 'in', [...spec.boards])
  if (spec.onlyBoardsOf !== undefined) query = query.where('board_id', 'in', memberBoardIds(q, spec.onlyBoardsOf))
  query = query.where((eb) => eb.or([eb('audience_id', 'is', null), eb('audience_id', '=', spec.reader)]))
  return query.orderBy('commit_seq').limit(spec.limit).$castTo<FeedRow>()
}

/** Every event after a commit_seq, oldest first, at most `limit`: what the waiting readers of a process are told of. */
export const eventsAfter = (q: Q, after: number, limit: number) =>
  q.selectFrom('events').select(columns).where('commit_seq', '>', after).orderBy('commit_seq').limit(limit).$castTo<FeedRow>()

/** The oldest events, for pruning: their commit_seq and time. */
export const oldestEvents = (q: Q, limit: number) =>
  q.selectFrom('events').select(['commit_seq', 'created_at']).where('commit_seq', 'is not', null).orderBy('commit_seq').limit(limit).execute()

/** Deletes the events up to a commit_seq. */
export const deleteEventsUpTo = (q: Q, seq: number) => q.deleteFrom('events').where('commit_seq', '<=', seq).execute()
