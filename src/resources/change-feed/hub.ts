// The change feed readers waiting in this process (`wait`), and what wakes them. One hub per database: when events
// commit (the events wake-up channel: this process's commits after they commit, the other processes' on PostgreSQL
// through LISTEN), it reads what is new once, judges for each reader which of it they receive (their selection, and
// the rule webhook deliveries are judged by, with one query for the readers' roles and one for their memberships of the
// new events' boards), and answers those it concerns. A waiting reader holds no database connection, and a thousand of
// them cost one read per commit, not a thousand.
import { receivesEvent } from '../../access/records.js'
import type { Db } from '../../db/database.js'
import { creatorRoles, membershipKey, membershipPairs } from '../../delivery/store.js'
import type { Deps } from '../../deps.js'
import { eventsAfter, type FeedRow } from './store.js'

/** A reader waiting for events. */
export interface Waiting {
  id: string
  userId: string
  /** Events after this commit_seq are new to the reader; the hub moves it past what it read and the reader does not receive. */
  after: number
  /** Whether the reader selected the event (its names and boards; whether it receives it is the hub's to judge). */
  accepts: (row: FeedRow) => boolean
  limit: number
  /** The hub's wake-up count before the reader's own read: a wake-up since then may have brought what it did not see. */
  generation: number
}

/** What a waiting reader is answered: its events, and where to read on from. */
export interface Found {
  rows: FeedRow[]
  next: number
}

/** Events read at once for the waiting readers (more are read in further rounds). */
const READ_AT_ONCE = 1000
/** Users per membership query (bound parameters stay well within both dialects' limits). */
const USERS_PER_QUERY = 500

export class FeedHub {
  /** Wake-ups of the events channel heard so far. */
  generation = 0
  private readonly waiting = new Map<string, Waiting & { found?: Found }>()
  private readonly perToken = new Map<string, number>()
  private places = 0
  private reading = false
  private again = false
  private poll?: NodeJS.Timeout
  /** The head as of the last read of the waiting readers' events, and the wake-up count before that read. */
  private head?: { seq: number; generation: number }

  constructor(private readonly deps: Deps) {
    deps.db.wakes.on('events', () => {
      this.generation++
      if (this.waiting.size > 0) this.readNew()
    })
  }

  /**
   * A place for one waiting request of this token, or undefined past the caps (TASKD_FEED_WAITS in all,
   * TASKD_FEED_WAITS_PER_TOKEN per token); the returned function gives it back.
   */
  admit(tokenId: string): (() => void) | undefined {
    const { feedWaits, feedWaitsPerToken } = this.deps.config
    const mine = this.perToken.get(tokenId) ?? 0
    if (this.places >= feedWaits || mine >= feedWaitsPerToken) return undefined
    this.places++
    this.perToken.set(tokenId, mine + 1)
    let given = false
    return () => {
      if (given) return
      given = true
      this.places--
      const left = (this.perToken.get(tokenId) ?? 1) - 1
      if (left > 0) this.perToken.set(tokenId, left)
      else this.perToken.delete(tokenId)
    }
  }

  /** Why a place was refused, for the 429. */
  refusal(tokenId: string): string {
    const { feedWaits, feedWaitsPerToken } = this.deps.config
    return (this.perToken.get(tokenId) ?? 0) >= feedWaitsPerToken
      ? `This token already has ${feedWaitsPerToken} change feed requests waiting; wait for one to answer, or ask with wait=0.`
      : `${feedWaits} change feed requests are waiting on this server; try again shortly, or ask with wait=0.`
  }

  /**
   * Waits up to `ms` for events the reader receives; resolves with them, or (time up, the client gone, shutdown) with
   * none and the cursor moved past what was read meanwhile.
   */
  async wait(reader: Waiting, ms: number, signal?: AbortSignal): Promise<Found> {
    const w: Waiting & { found?: Found } = { ...reader }
    this.waiting.set(w.id, w)
    this.poll ??= setInterval(() => this.readNew(), this.deps.config.pollMs).unref()
    // Committed between the reader's read and now: its wake-up has passed, so look now.
    if (this.generation !== w.generation) this.readNew()
    try {
      await this.deps.feedWaiters.wait([w.id], ms, signal)
    } finally {
      this.waiting.delete(w.id)
      if (this.waiting.size === 0) {
        clearInterval(this.poll)
        this.poll = undefined
      }
    }
    return w.found ?? { rows: [], next: w.after }
  }

  /** Whether the log holds nothing after `seq` that the hub has not read: its last read ended there and nothing woke it since. */
  readUpTo(seq: number): boolean {
    return this.head !== undefined && this.head.seq === seq && this.head.generation === this.generation
  }

  /** One round of reading at a time; a wake-up during a round makes another. */
  private readNew(): void {
    if (this.reading) {
      this.again = true
      return
    }
    this.reading = true
    void this.rounds()
      .catch((err: unknown) => console.error('the change feed could not read new events', err))
      .finally(() => (this.reading = false))
  }

  private async rounds(): Promise<void> {
    do {
      this.again = false
      if (this.waiting.size === 0) return
      const from = Math.min(...[...this.waiting.values()].map((w) => w.after))
      const generation = this.generation
      const rows = await this.deps.db.read(eventsAfter(this.deps.db.q, from, READ_AT_ONCE))
      if (rows.length === READ_AT_ONCE) this.again = true
      // Everything after `from` that had committed when the read began (a waiter's `after` is never past the head).
      else this.head = { seq: rows.length > 0 ? rows[rows.length - 1].commit_seq : from, generation }
      if (rows.length > 0) await this.hand(rows, from)
    } while (this.again)
  }

  /** Answers each waiting reader that receives some of `rows` (every event after `from`, in commit order). */
  private async hand(rows: readonly FeedRow[], from: number): Promise<void> {
    const { q } = this.deps.db
    const upTo = rows[rows.length - 1].commit_seq
    const readers = [...this.waiting.values()].filter((w) => w.after < upTo)
    if (readers.length === 0) return
    const users = [...new Set(readers.map((w) => w.userId))]
    const roles = await creatorRoles(q, users)
    const boards = [...new Set(rows.flatMap((r) => (r.board_id === null ? [] : [r.board_id])))]
    const members = new Set<string>()
    for (let i = 0; i < users.length && boards.length > 0; i += USERS_PER_QUERY) {
      const pairs = users.slice(i, i + USERS_PER_QUERY).flatMap((userId) => boards.map((boardId) => ({ boardId, userId })))
      for (const key of await membershipPairs(q, pairs)) members.add(key)
    }
    for (const w of readers) {
      // Gone meanwhile (answered, timed out), or came after this round began: the next round is for it.
      if (!this.waiting.has(w.id)) continue
      if (w.after < from) {
        this.again = true
        continue
      }
      const role = roles.get(w.userId) ?? 'member'
      const mine = rows.filter(
        (r) =>
          r.commit_seq > w.after && w.accepts(r) && receivesEvent(role, r.board_id !== null && members.has(membershipKey(r.board_id, w.userId)), r.board_id),
      )
      if (mine.length === 0) {
        w.after = upTo
        continue
      }
      w.found = { rows: mine.slice(0, w.limit), next: mine.length > w.limit ? mine[w.limit - 1].commit_seq : upTo }
      this.deps.feedWaiters.notify([w.id])
    }
  }
}

const hubs = new WeakMap<Db, FeedHub>()

/** The hub of this database, listening for events once something has asked for it. */
export async function feedHub(deps: Deps): Promise<FeedHub> {
  let hub = hubs.get(deps.db)
  if (!hub) hubs.set(deps.db, (hub = new FeedHub(deps)))
  // On PostgreSQL the first subscriber opens the LISTEN connection: other processes' commits wake the hub once it listens.
  await deps.db.wakes.ready
  return hub
}
