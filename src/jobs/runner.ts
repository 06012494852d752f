// The durable job runner every background queue shares: claims due jobs under a lease, runs them with bounded
// concurrency, wakes for the next due time, hands back unstarted claims on stop, and drives everything by hand in tests.
import PQueue from 'p-queue'
import type { Clock } from '../clock.js'
import { type Db, inBackground, type Q } from '../db/database.js'
import { Pump } from './pump.js'

/**
 * The table of one queue. A job is due when its due time has come and its lease has run out: `lease_until < now`, the
 * same comparison in every claim query, so a job leased until t is still held at t.
 */
export interface JobQueue<T extends { id: string }> {
  /** Whether anything is due: a plain read, so an idle poll never takes the write lock other connections wait on. */
  hasDue(q: Q, now: number): Promise<boolean>
  /**
   * Leases up to `limit` due jobs until `leaseUntil`, in a write transaction. On PostgreSQL it skips rows another
   * process is claiming (FOR UPDATE SKIP LOCKED) and checks the lease on the row it updates, so no job is claimed twice.
   */
  claim(q: Q, now: number, leaseUntil: number, limit: number): Promise<T[]>
  /** The next due time after `now`, so the runner wakes for it instead of waiting for a poll. */
  nextDueAt(q: Q, now: number): Promise<number | undefined>
  /** Gives back claims that never started, so the next runner takes them at once instead of after the lease. */
  release(q: Q, ids: readonly string[]): Promise<void>
}

/** What run() may return: a job whose result is recorded later (in a batch) stays in flight until `recorded` settles. */
export interface Deferred {
  recorded: Promise<void>
}

export interface JobRunnerOptions<T extends { id: string }> {
  /** Names the queue in log lines. */
  name: string
  queue: JobQueue<T>
  /** One attempt at a job. A throw is logged; the lease brings the job back later. */
  run(job: T): Promise<void | Deferred>
  /** Jobs run at once. */
  concurrency: number
  /** Jobs claimed ahead, as a multiple of concurrency (1: only what can start now). */
  claimAhead?: number
  /** Safety-net poll; commits wake the runner and due times arm their own timer. */
  pollMs: number
  leaseMs: number
  log: (msg: string, err?: unknown) => void
  /** Domain upkeep at the start of each round, whether or not anything is due (its errors are logged). */
  beforeClaim?(now: number): Promise<void>
  /** The log line of a run that threw (default: the queue's name and the job's id). */
  failure?(job: T): string
  /** Told of each claimed batch before its jobs start (e.g. to look up what they need in one query). */
  onClaimed?(jobs: readonly T[]): Promise<void>
}

export class JobRunner<T extends { id: string }> {
  private readonly queue: PQueue
  /** Claimed by this runner and not finished (or not recorded): never claimed twice even if a lease runs out mid-attempt. */
  private readonly inflight = new Set<string>()
  /** Claimed but not started; handed back on stop. */
  private readonly waiting = new Set<string>()
  /** Results of finished jobs still being recorded, which runOnce waits for. */
  private readonly recording = new Set<Promise<void>>()
  private stopping = false
  private stopDone?: Promise<void>
  /** After stop: a job that outlasted the grace period and is cut short is not worth a log line. */
  private closed = false
  /** Claims one round at a time, after wake() or the poll; readiness asks it whether the worker is alive. */
  readonly pump = new Pump(() => this.round())
  private dueTimer?: NodeJS.Timeout
  private kickQueued = false

  constructor(
    private readonly deps: { db: Db; clock: Clock },
    private readonly opts: JobRunnerOptions<T>,
  ) {
    this.queue = new PQueue({ concurrency: opts.concurrency })
  }

  start(): void {
    this.pump.start(this.opts.pollMs)
  }

  /** Claims on the next turn of the event loop (after a commit that queued jobs). */
  wake(): void {
    this.pump.wake()
  }

  /** Whether stop() was called: a long job checks it between its steps and hands itself back. */
  get stopped(): boolean {
    return this.stopping
  }

  private async round(): Promise<number> {
    if (this.stopping) return 0
    const { db, clock } = this.deps
    const { queue, log, name } = this.opts
    const now = clock.now()
    if (this.opts.beforeClaim)
      await this.opts.beforeClaim(now).catch((err: unknown) => {
        log(`${name}: the round's upkeep failed`, err)
      })
    // Claim only what can start soon, so a claimed job never waits in memory long enough for its lease to run out.
    const free = this.opts.concurrency * (this.opts.claimAhead ?? 1) - this.inflight.size
    if (free <= 0) return 0
    let jobs: T[]
    try {
      const due = await queue.hasDue(db.q, now)
      jobs = due ? (await db.tx(({ q }) => queue.claim(q, now, now + this.opts.leaseMs, free))).filter((j) => !this.inflight.has(j.id)) : []
    } catch (err) {
      log(`${name}: claim failed`, err)
      return 0
    }
    try {
      if (jobs.length < free && this.pump.started) await this.armDueTimer(now)
    } catch (err) {
      log(`${name}: reading the next due time failed`, err) // the poll wakes the runner all the same
    }
    try {
      // Claimed while stop() began: handed back at once, so the next runner takes them without waiting for the lease.
      if (this.stopping) throw new Error('stopping')
      await this.opts.onClaimed?.(jobs)
    } catch (err) {
      if (!this.stopping) log(`${name}: preparing claimed jobs failed; handing them back`, err)
      await queue
        .release(
          db.q,
          jobs.map((j) => j.id),
        )
        .catch((e: unknown) => log(`${name}: handing back claims failed`, e))
      return 0
    }
    for (const job of jobs) {
      this.inflight.add(job.id)
      this.waiting.add(job.id)
      void this.queue.add(() => this.attempt(job))
    }
    return jobs.length
  }

  private async attempt(job: T): Promise<void> {
    this.waiting.delete(job.id)
    let outcome: void | Deferred = undefined
    try {
      // Background work: on SQLite, requests waiting for the connection get every other turn (db/database.ts).
      outcome = await inBackground(() => this.opts.run(job))
    } catch (err) {
      if (!this.closed) this.opts.log(this.opts.failure?.(job) ?? `${this.opts.name}: job ${job.id} failed unexpectedly`, err)
    }
    if (!outcome) return this.done(job.id)
    const recorded = outcome.recorded
      .catch((err: unknown) => this.opts.log(`${this.opts.name}: recording job ${job.id} failed`, err))
      .finally(() => {
        this.recording.delete(recorded)
        this.done(job.id)
      })
    this.recording.add(recorded)
  }

  /** A free slot: claims again in this turn (a turn may be long when requests keep the event loop busy), once per batch. */
  private done(id: string): void {
    this.inflight.delete(id)
    if (!this.pump.started || this.kickQueued) return
    this.kickQueued = true
    queueMicrotask(() => {
      this.kickQueued = false
      void this.pump.run()
    })
  }

  /** A timer for the next due time before the next poll, so "about one second" stays about one second. */
  private async armDueTimer(now: number): Promise<void> {
    const next = await this.opts.queue.nextDueAt(this.deps.db.q, now)
    if (next === undefined || next - now >= this.opts.pollMs) return
    clearTimeout(this.dueTimer)
    this.dueTimer = setTimeout(() => this.wake(), Math.max(0, next - now))
    this.dueTimer.unref()
  }

  /** Test driver: runs everything due at the clock's current time and waits until it is recorded. */
  async runOnce(): Promise<number> {
    let total = 0
    for (;;) {
      const n = await this.pump.run()
      total += n
      await this.queue.onIdle()
      await Promise.all(this.recording)
      if (n === 0) return total
    }
  }

  /**
   * Stops claiming, hands back unstarted claims, and lets jobs in flight finish for up to graceMs; one still running
   * then keeps its lease and is run again after restart.
   */
  stop(graceMs = 10_000): Promise<void> {
    // A second call (a second signal) waits for the first instead of returning while jobs are still finishing.
    return (this.stopDone ??= this.stopNow(graceMs))
  }

  private async stopNow(graceMs: number): Promise<void> {
    this.stopping = true
    clearTimeout(this.dueTimer)
    // The round in progress ends first: what it claims from now on it hands back itself (round() checks stopping).
    await this.pump.stop()
    this.queue.clear()
    const unstarted = [...this.waiting]
    this.waiting.clear()
    for (const id of unstarted) this.inflight.delete(id)
    try {
      await this.opts.queue.release(this.deps.db.q, unstarted)
    } catch (err) {
      this.opts.log(`${this.opts.name}: handing back claims failed`, err)
    }
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.queue.onIdle(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))])
    clearTimeout(timer)
    this.closed = true
  }
}
