// The outbox scheduler: claims due rows under a lease, delivers them with bounded concurrency (the HTTP part on the
// sending thread), records results in batches, stops gracefully.
import PQueue from 'p-queue'
import { isoAt } from '../clock.js'
import type { OutboxTable } from '../db/types.js'
import type { Deps } from '../deps.js'
import { Pump } from '../pump.js'
import { VERSION } from '../version.js'
import { deliverRow, gateBatch, type DeliveryEnv, type Gate, type Settlement } from './deliver.js'
import { writeSettlements } from './record.js'
import { SendThread, type Sender } from './send-thread.js'
import { anyActiveWebhook, claimDueRows, nextDueAfter, purgeFinishedRows, releaseLeases } from './store.js'

export interface SchedulerOptions {
  /**
   * Attempts in flight at once (default 64); twice as many rows are claimed ahead. Results are recorded and rows claimed
   * once per turn of the event loop, so this bounds what one turn can move: with requests keeping the loop busy for tens
   * of milliseconds a turn, 16 could not keep up with cards created as fast as possible (bench/README.md, Webhooks).
   */
  concurrency?: number
  /** Safety-net poll; commits wake the scheduler at once and retries arm their own timer. */
  pollMs?: number
  /** Sends the attempts: a SendThread of its own by default (tests inject one, or one on their own thread with a fake resolver). */
  sender?: Sender
  log?: (msg: string, err?: unknown) => void
  /** Told of each batch of attempts once it is recorded (the deliveries counter of /metrics). */
  onRecorded?: (batch: readonly Settlement[]) => void
}

const FINISHED_KEPT_MS = 24 * 3600_000
const PURGE_EVERY_MS = 60_000
const FLUSH_DELAY_MS = 5
const REGATE_AFTER_MS = 100

export class OutboxScheduler {
  private readonly queue: PQueue
  private readonly concurrency: number
  private readonly pollMs: number
  private readonly leaseMs: number
  private readonly env: DeliveryEnv
  private readonly log: (msg: string, err?: unknown) => void
  private readonly onRecorded: (batch: readonly Settlement[]) => void
  /** Claimed by this process and not yet recorded: never claimed twice even if a lease runs out mid-attempt. */
  private readonly inflight = new Set<string>()
  /** Claimed but not started; handed back on shutdown. */
  private readonly waiting = new Set<string>()
  private settled: Settlement[] = []
  private stopped = false
  private closed = false
  /** Claims (claim()) one at a time, after wake() or the poll; readiness asks it whether the worker is alive. */
  readonly pump = new Pump(() => this.claim())
  private flushQueued = false
  /** The flush in progress: flushes run one after another, and runOnce/stop wait for the last to commit. */
  private flushing: Promise<void> = Promise.resolve()
  private dueTimer?: NodeJS.Timeout
  private lastPurge = 0

  constructor(
    private readonly deps: Deps,
    opts: SchedulerOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 64
    this.pollMs = opts.pollMs ?? 1000
    this.leaseMs = deps.config.webhookLeaseMs ?? deps.config.webhookTimeoutMs + 20_000
    this.queue = new PQueue({ concurrency: this.concurrency })
    this.log = opts.log ?? ((msg, err) => console.error(msg, err))
    this.onRecorded = opts.onRecorded ?? (() => {})
    this.env = { deps, userAgent: `taskd-webhooks/${VERSION}`, sender: opts.sender ?? new SendThread(), material: new Map() }
  }

  /** Starts background delivery: a poll as safety net plus wake() after each commit. */
  start(): void {
    this.pump.start(this.pollMs)
    this.warm().catch((err) => {
      if (!this.stopped) this.log('starting the webhook sending thread failed', err)
    })
  }

  /** Starts the sender ahead of the first event where a subscription is active (the first batch then waits for no thread). */
  async warm(): Promise<void> {
    if ((await anyActiveWebhook(this.deps.db.q)) && !this.stopped) this.env.sender.start()
  }

  /** Called after a commit that wrote outbox rows (deps.onOutboxWrite); claims on the next turn of the event loop. */
  wake(): void {
    this.pump.wake()
  }

  /** Claims what is due now and hands it to the queue; returns how many rows were claimed. */
  private async claim(): Promise<number> {
    if (this.stopped) return 0
    // Claim only what can start soon, so a claimed row never waits in memory long enough for its lease to run out.
    const free = this.concurrency * 2 - this.inflight.size
    if (free <= 0) return 0
    const now = this.deps.clock.now()
    let rows: OutboxTable[]
    let gates: Map<string, Gate>
    try {
      rows = (await claimDueRows(this.deps.db.q, now, now + this.leaseMs, free)).filter((r) => !this.inflight.has(r.id))
      gates = await gateBatch(this.deps.db.q, rows)
      if (rows.length < free && this.pump.started) await this.armDueTimer(now)
      await this.purge(now)
    } catch (err) {
      this.log('webhook outbox claim failed', err)
      return 0
    }
    const claimedAt = performance.now()
    for (const row of rows) {
      this.inflight.add(row.id)
      this.waiting.add(row.id)
      void this.queue.add(() => this.attempt(row, gates.get(row.id)!, claimedAt))
    }
    return rows.length
  }

  private async attempt(row: OutboxTable, claimGate: Gate, claimedAt: number): Promise<void> {
    this.waiting.delete(row.id)
    try {
      // A row that waited for a free slot is judged again, so membership is checked when it is sent, not when claimed.
      const gate = performance.now() - claimedAt > REGATE_AFTER_MS ? (await gateBatch(this.deps.db.q, [row])).get(row.id)! : claimGate
      // Awaited before touching this.settled: `this.settled.push(await …)` would push into the array a flush already took.
      const settlement = await deliverRow(this.env, row, gate)
      this.settled.push(settlement)
    } catch (err) {
      // The lease brings the row back later. Before stop this is unexpected (sendWebhook never throws: the sending
      // thread died); after it, it is an attempt that outlasted the grace period, cut short on purpose.
      this.inflight.delete(row.id)
      if (!this.closed) this.log('webhook delivery failed unexpectedly', err)
    }
    if (!this.flushQueued) {
      this.flushQueued = true
      // A few milliseconds of gathering turn many one-row commits into one; receivers already have their payloads. A
      // timer runs at the start of the next turn of the event loop, before the work (requests) that turn was queued for.
      setTimeout(() => void this.flush(), FLUSH_DELAY_MS)
    }
  }

  /**
   * Records what has settled since the last flush in one transaction, after the flush before it has committed (with
   * a connection pool, two flushes could otherwise commit in either order, and a caller of runOnce could read before
   * a flush started by a timer had committed).
   */
  private flush(): Promise<void> {
    this.flushQueued = false
    this.flushing = this.flushing.then(() => this.writeSettled())
    return this.flushing
  }

  private async writeSettled(): Promise<void> {
    const batch = this.settled
    this.settled = []
    if (batch.length === 0 || this.closed) return
    try {
      await writeSettlements(this.deps.db, batch)
      this.onRecorded(batch)
    } catch (err) {
      this.log('recording webhook attempts failed', err)
    } finally {
      for (const s of batch) this.inflight.delete(s.id)
    }
    // Claims again in this turn, not the next: a turn may be long when requests keep the event loop busy.
    if (this.pump.started) void this.pump.run()
  }

  /** A timer for the next retry or sample due before the next poll, so "about one second" stays about one second. */
  private async armDueTimer(now: number): Promise<void> {
    const next = await nextDueAfter(this.deps.db.q, now)
    if (next === undefined || next - now >= this.pollMs) return
    clearTimeout(this.dueTimer)
    this.dueTimer = setTimeout(() => this.wake(), next - now)
    this.dueTimer.unref()
  }

  private async purge(now: number): Promise<void> {
    if (now - this.lastPurge < PURGE_EVERY_MS) return
    this.lastPurge = now
    await purgeFinishedRows(this.deps.db.q, isoAt(now - FINISHED_KEPT_MS))
  }

  /** Test driver: delivers everything due at the clock's current time and waits until it is recorded. */
  async runOnce(): Promise<number> {
    let total = 0
    for (;;) {
      const n = await this.pump.run()
      total += n
      await this.queue.onIdle()
      await this.flush()
      if (n === 0) return total
    }
  }

  /** Stops claiming, lets attempts in flight finish for up to graceMs, records them, and hands back unstarted claims. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.closed) return
    this.stopped = true
    const pumped = this.pump.stop()
    clearTimeout(this.dueTimer)
    this.queue.clear()
    const unstarted = [...this.waiting]
    this.waiting.clear()
    for (const id of unstarted) this.inflight.delete(id)
    try {
      await releaseLeases(this.deps.db.q, unstarted)
    } catch (err) {
      this.log('releasing webhook claims failed', err)
    }
    let timer: NodeJS.Timeout | undefined
    // Attempts still running after the grace period keep their lease and are sent again after restart.
    await Promise.race([
      this.queue.onIdle(),
      new Promise<void>((r) => {
        timer = setTimeout(r, graceMs)
      }),
    ])
    clearTimeout(timer)
    await pumped
    await this.flush()
    this.closed = true
    await this.env.sender.close()
  }
}
