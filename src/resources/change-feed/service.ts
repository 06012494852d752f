// The change feed: the events a caller would receive by webhook (a subscription of their own to every board they
// may name), read in commit order from the event log with a cursor, optionally waiting for the next ones; and the
// log's retention.
import { eventsReceivedOnlyOnBoardsOf } from '../../access/records.js'
import type { Actor } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Deps } from '../../deps.js'
import { badRequest, HttpError } from '../../errors.js'
import { bodyWithData } from '../../events/emit.js'
import { expandEventSelectors } from '../../events/names.js'
import { newId } from '../../ids.js'
import { eventProblems } from '../webhooks/rules.js'
import { type Cursor, decodeCursor, encodeCursor } from './cursor.js'
import { feedHub } from './hub.js'
import { AFTER_NOW, type FeedInput, type FeedView } from './schema.js'
import { deleteEventsUpTo, feedPage, type FeedRow, logBounds, oldestEvents } from './store.js'

const DAY_MS = 86_400_000

const cursorExpired = (message: string) => new HttpError(410, 'cursor_expired', message)

/** The event names `events` selects (comma-separated selectors, as a subscription's), or undefined for every event. */
function selection(events: string | undefined): ReadonlySet<string> | undefined {
  if (events === undefined) return undefined
  const selectors = events
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (selectors.length === 0)
    throw badRequest('events names no event; leave it out for every event.', [{ path: 'events', message: 'Name at least one event.' }])
  const problems = eventProblems(selectors)
  if (problems.length > 0)
    throw badRequest(
      problems[0].message,
      problems.map((p) => ({ path: 'events', message: p.message })),
    )
  return expandEventSelectors(selectors) as Set<string>
}

/** The boards `boards` names (comma-separated ids), or undefined for every board. */
function boardSelection(boards: string | undefined): ReadonlySet<string> | undefined {
  if (boards === undefined) return undefined
  const ids = boards
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (ids.length === 0) throw badRequest('boards names no board; leave it out for every board.', [{ path: 'boards', message: 'Name at least one board.' }])
  if (ids.length > 100) throw badRequest('boards names more than 100 boards.', [{ path: 'boards', message: 'At most 100 boards.' }])
  return new Set(ids)
}

/** The cursor `after` names: none (the oldest event kept), `now` (the head), or one handed out, not too old. */
function cursorOf(after: string | undefined, now: number, retentionDays: number): Cursor | typeof AFTER_NOW | undefined {
  if (after === undefined || after === AFTER_NOW) return after
  const cursor = decodeCursor(after)
  if (!cursor)
    throw badRequest('after is not a cursor of this feed.', [
      { path: 'after', message: 'Pass the next of an earlier answer, or now; leave it out to start at the oldest event.' },
    ])
  if (cursor.at < now - retentionDays * DAY_MS)
    throw cursorExpired(
      `The cursor is older than the ${retentionDays} days the event log keeps; start again with after=now (or without after), and reload what you keep.`,
    )
  return cursor
}

/** Where a read starts (the commit_seq after which it reads), judged against the log as it is now. */
function startOf(cursor: Cursor | typeof AFTER_NOW | undefined, log: { head: number; oldest: number | null }): number {
  if (cursor === undefined) return 0
  if (cursor === AFTER_NOW) return log.head
  // Events after the cursor were deleted by the retention (or the log was restored from an older copy): some are lost.
  if ((log.oldest !== null && cursor.seq < log.oldest - 1) || cursor.seq > log.head)
    throw cursorExpired('The event log no longer holds the events after this cursor; start again with after=now (or without after), and reload what you keep.')
  return cursor.seq
}

/** An answer of the feed: its JSON text, written as a webhook delivery's body is (the stored payload as it is). */
export interface FeedAnswer {
  text: string
  /** The answer as a value (for MCP), parsed from the text when asked for. */
  view(): FeedView
}

function answer(rows: readonly FeedRow[], next: number, now: number): FeedAnswer {
  const text = `{"items":[${rows.map((r) => bodyWithData(r.id, r.name, r.created_at, r.data)).join(',')}],"next":${JSON.stringify(encodeCursor({ seq: next, at: now }))}}`
  return { text, view: () => JSON.parse(text) as FeedView }
}

/**
 * A page of the caller's events after `after`; with `wait`, when there is none yet, the first that commit within it.
 * Visibility is a webhook delivery's: owners and admins receive every event, others those of the boards they are a
 * member of now (receivesEvent). `signal` ends a wait when the client goes away.
 */
export async function readFeed(deps: Deps, actor: Actor, input: FeedInput, signal?: AbortSignal): Promise<FeedAnswer> {
  const names = selection(input.events)
  const boards = boardSelection(input.boards)
  const accepts = (row: FeedRow) =>
    (!names || names.has(row.name)) &&
    (!boards || (row.board_id !== null && boards.has(row.board_id))) &&
    (row.audience_id === null || row.audience_id === actor.user.id)
  const hub = input.wait > 0 ? await feedHub(deps) : undefined
  const release = hub?.admit(actor.tokenId)
  if (hub && !release) throw new HttpError(429, 'rate_limited', hub.refusal(actor.tokenId), undefined, { 'Retry-After': '1' })
  try {
    // Taken before the read: a commit the read does not see wakes the hub after this.
    const generation = hub?.generation ?? 0
    const cursor = cursorOf(input.after, deps.clock.now(), deps.config.eventRetentionDays)
    // A reader asking again right after its answer: the hub has read everything up to its cursor, and nothing has
    // committed since (no wake-up), so it waits at once, without a read of its own.
    if (hub && typeof cursor === 'object' && hub.readUpTo(cursor.seq)) {
      const found = await hub.wait(
        { id: newId(), userId: actor.user.id, after: cursor.seq, accepts, limit: input.limit, generation },
        input.wait * 1000,
        signal,
      )
      return answer(found.rows, found.next, deps.clock.now())
    }
    const { db } = deps
    const [bounds] = await db.read(logBounds(db.q))
    const log = { head: bounds.head ?? 0, oldest: bounds.oldest }
    const after = startOf(cursor, log)
    const rows =
      after < log.head
        ? await db.read(
            feedPage(db.q, {
              after,
              upTo: log.head,
              names: names && [...names],
              boards: boards && [...boards],
              onlyBoardsOf: eventsReceivedOnlyOnBoardsOf(actor.user),
              reader: actor.user.id,
              limit: input.limit,
            }),
          )
        : []
    const next = rows.length === input.limit ? rows[rows.length - 1].commit_seq : log.head
    if (rows.length > 0 || !hub || signal?.aborted) return answer(rows, next, deps.clock.now())
    const found = await hub.wait({ id: newId(), userId: actor.user.id, after: next, accepts, limit: input.limit, generation }, input.wait * 1000, signal)
    return answer(found.rows, found.next, deps.clock.now())
  } finally {
    release?.()
  }
}

/** Events read per pruning step (each step one transaction). */
const PRUNE_STEP = 1000

/**
 * Deletes the events older than TASKD_EVENT_RETENTION_DAYS, oldest first, a step per transaction, and never the
 * newest event (the next commit_seq counts on from it). Housekeeping runs it hourly.
 */
export async function pruneEventLog(deps: Deps, stopping: () => boolean = () => false): Promise<number> {
  const cutoff = isoAt(deps.clock.now() - deps.config.eventRetentionDays * DAY_MS)
  let deleted = 0
  for (;;) {
    const step = await deps.db.tx(async ({ q }) => {
      // The last row read stays: it may be the newest event (and if not, the next step reads on from it).
      const candidates = (await oldestEvents(q, PRUNE_STEP + 1)).slice(0, -1)
      // commit_seq order is time order but for the moments between an event's write and its commit: stop at the first kept.
      let n = 0
      while (n < candidates.length && candidates[n].created_at < cutoff) n++
      if (n > 0) await deleteEventsUpTo(q, candidates[n - 1].commit_seq!)
      return { n, more: n === PRUNE_STEP }
    })
    deleted += step.n
    if (!step.more || stopping()) return deleted
  }
}
