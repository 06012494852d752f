// Wake-ups between the taskd processes on one database. A transaction that queues work (outbox rows, automation runs,
// kickoffs, a kickoff left for a claimer) or writes events names the channel to wake with Tx.wake; when it commits, the
// other processes' subscribers of that channel (db.wakes.on) run, so their workers claim at once instead of on their
// next poll. On PostgreSQL that is a NOTIFY sent with the COMMIT and one LISTEN connection per process
// (postgres-listen.ts); on SQLite one process has the database, and its own afterCommit hooks wake its workers.
// Polling stays the safety net: a notification lost while the listening connection was down is found by the next poll.
import crypto from 'node:crypto'

/**
 * What woke: outbox rows to deliver; jobs (automation runs or kickoffs to attempt: the payload says which); claims (a
 * kickoff a claim long poll may take: the payload names its agents); events (events committed: the payload names their
 * boards, for a change feed).
 */
export const WAKE_CHANNELS = ['outbox', 'jobs', 'claims', 'events'] as const
export type WakeChannel = (typeof WAKE_CHANNELS)[number]

/** What a wake-up of the jobs channel names: automation runs, or kickoffs, to claim. */
export const JOB_RUNS = 'automation-runs'
export const JOB_KICKOFFS = 'kickoffs'

/** What an events wake-up names for events of no board (workspace events). */
export const WORKSPACE = 'workspace'

/** The PostgreSQL channel of each: a fixed set, so LISTEN needs no quoting and no name comes from data. */
export const pgChannel = (channel: WakeChannel) => `taskd_${channel}`
export const channelOf = (pg: string): WakeChannel | undefined => WAKE_CHANNELS.find((c) => pgChannel(c) === pg)

/** A payload this long at most (PostgreSQL allows 8000 bytes); longer lists are sent as ALL. */
const MAX_ITEMS_CHARS = 512
/** "Everything on the channel": a list too long to send, or a wake after the listening connection was down. */
export const ALL = '*'

/** The payload of a notification: the sending process's id, a space, and what woke (comma-separated ids or names). */
export function encodeWake(processId: string, items: ReadonlySet<string>): string {
  const list = items.has(ALL) ? ALL : [...items].join(',')
  return `${processId} ${list.length > MAX_ITEMS_CHARS ? ALL : list}`
}

/** The sender and the items of a payload; undefined for one taskd never sends (another program on the channel). */
export function decodeWake(payload: string): { processId: string; items: string[] } | undefined {
  const space = payload.indexOf(' ')
  if (space <= 0) return undefined
  return {
    processId: payload.slice(0, space),
    items: payload
      .slice(space + 1)
      .split(',')
      .filter(Boolean),
  }
}

export type WakeListener = (items: readonly string[]) => void

/**
 * The wake-ups one process hears: `deliver` (the listening connection, or this process's own commits for the events
 * channel) calls each subscriber of the channel. `onFirstSubscriber` starts what hears other processes (PostgreSQL:
 * the LISTEN connection), so a short CLI command that subscribes to nothing opens none.
 */
export class Wakes {
  /** Names this process in the payloads it sends, so it skips its own notifications. */
  readonly processId = crypto.randomBytes(8).toString('hex')
  private readonly listeners = new Map<WakeChannel, Set<WakeListener>>()
  private started = false
  /** Settles once what hears other processes listens (or has failed and retries): `serve` waits for it before it says it listens. */
  ready: Promise<void> = Promise.resolve()

  constructor(private readonly onFirstSubscriber: () => Promise<void> | void = () => {}) {}

  /** Calls fn with what woke each time `channel` wakes (another process's commit; for events, this one's too); returns the unsubscribe. */
  on(channel: WakeChannel, fn: WakeListener): () => void {
    let set = this.listeners.get(channel)
    if (!set) this.listeners.set(channel, (set = new Set()))
    set.add(fn)
    if (!this.started) {
      this.started = true
      this.ready = Promise.resolve(this.onFirstSubscriber())
    }
    return () => void set.delete(fn)
  }

  /** Runs the channel's subscribers; one that throws is logged by `log` and the others still run. */
  deliver(channel: WakeChannel, items: readonly string[], log: (msg: string, err?: unknown) => void = console.error): void {
    for (const fn of [...(this.listeners.get(channel) ?? [])]) {
      try {
        fn(items)
      } catch (err) {
        log(`a wake-up on ${channel} failed`, err)
      }
    }
  }

  /** Every channel with ALL: after the listening connection was down, anything may have been missed. */
  deliverAll(log?: (msg: string, err?: unknown) => void): void {
    for (const channel of WAKE_CHANNELS) this.deliver(channel, [ALL], log)
  }
}
