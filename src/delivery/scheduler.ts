// The outbox scheduler: a user of the job runner that delivers claimed outbox rows (the HTTP part on the sending
// thread), records results in batches, and purges old finished rows.
import { isoAt } from '../clock.js'
import type { OutboxTable } from '../db/types.js'
import type { Deps } from '../deps.js'
import { JobRunner, type Deferred } from '../jobs/runner.js'
import { JobWorker } from '../jobs/worker.js'
import { VERSION } from '../version.js'
import { deliverRow, gateBatch, type DeliveryEnv, type Gate, type Settlement } from './deliver.js'
import { writeSettlements } from './record.js'
import { SendThread, type Sender } from './send-thread.js'
import { anyActiveWebhook, anyDueRow, claimDueRows, nextDueAfter, purgeFinishedRows, releaseLeases } from './store.js'

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

export class OutboxScheduler extends JobWorker<OutboxTable> {
  protected readonly jobs: JobRunner<OutboxTable>
  private readonly env: DeliveryEnv
  private readonly log: (msg: string, err?: unknown) => void
  private readonly onRecorded: (batch: readonly Settlement[]) => void
  /** Each claimed row's subscription, judged once for its whole batch, and when it was judged. */
  private readonly gates = new Map<string, { gate: Gate; at: number }>()
  private settled: Settlement[] = []
  private closed = false
  /** The flush the next settlement goes into, armed by the first one after a flush. */
  private nextFlush?: Promise<void>
  /** The flush in progress: flushes run one after another, and runOnce/stop wait for the last to commit. */
  private flushing: Promise<void> = Promise.resolve()
  private lastPurge = 0

  constructor(
    private readonly deps: Deps,
    opts: SchedulerOptions = {},
  ) {
    super()
    this.log = opts.log ?? ((msg, err) => console.error(msg, err))
    this.onRecorded = opts.onRecorded ?? (() => {})
    this.env = { deps, userAgent: `taskd-webhooks/${VERSION}`, sender: opts.sender ?? new SendThread(), material: new Map() }
    this.jobs = new JobRunner(deps, {
      name: 'webhook outbox',
      queue: { hasDue: anyDueRow, claim: claimDueRows, nextDueAt: nextDueAfter, release: releaseLeases },
      run: (row) => this.attempt(row),
      concurrency: opts.concurrency ?? 64,
      claimAhead: 2,
      pollMs: opts.pollMs ?? 1000,
      leaseMs: deps.config.webhookLeaseMs ?? deps.config.webhookTimeoutMs + 20_000,
      log: this.log,
      failure: () => 'webhook delivery failed unexpectedly',
      beforeClaim: (now) => this.purge(now),
      onClaimed: async (rows) => {
        const at = performance.now()
        for (const [id, gate] of await gateBatch(deps.db.q, rows)) this.gates.set(id, { gate, at })
      },
    })
  }

  /** Starts background delivery: a poll as safety net plus wake() after each commit. */
  override start(): void {
    super.start()
    this.warm().catch((err) => {
      if (!this.jobs.stopped) this.log('starting the webhook sending thread failed', err)
    })
  }

  /** Starts the sender ahead of the first event where a subscription is active (the first batch then waits for no thread). */
  async warm(): Promise<void> {
    if ((await anyActiveWebhook(this.deps.db.q)) && !this.jobs.stopped) this.env.sender.start()
  }

  private async attempt(row: OutboxTable): Promise<Deferred> {
    const claimed = this.gates.get(row.id)!
    this.gates.delete(row.id)
    // A row that waited for a free slot is judged again, so membership is checked when it is sent, not when claimed.
    const gate = performance.now() - claimed.at > REGATE_AFTER_MS ? (await gateBatch(this.deps.db.q, [row])).get(row.id)! : claimed.gate
    // Awaited before touching this.settled: `this.settled.push(await …)` would push into the array a flush already took.
    const settlement = await deliverRow(this.env, row, gate)
    this.settled.push(settlement)
    // A few milliseconds of gathering turn many one-row commits into one; receivers already have their payloads. A
    // timer runs at the start of the next turn of the event loop, before the work (requests) that turn was queued for.
    this.nextFlush ??= new Promise<void>((resolve) => setTimeout(() => resolve(this.flush()), FLUSH_DELAY_MS))
    return { recorded: this.nextFlush }
  }

  /**
   * Records what has settled since the last flush in one transaction, after the flush before it has committed (with
   * a connection pool, two flushes could otherwise commit in either order, and a caller of runOnce could read before
   * a flush started by a timer had committed).
   */
  private flush(): Promise<void> {
    this.nextFlush = undefined
    this.flushing = this.flushing.then(() => this.writeSettled())
    return this.flushing
  }

  private async writeSettled(): Promise<void> {
    const batch = this.settled
    this.settled = []
    if (batch.length === 0 || this.closed) return
    try {
      await writeSettlements(this.deps, batch)
      this.onRecorded(batch)
    } catch (err) {
      this.log('recording webhook attempts failed', err)
    }
  }

  private async purge(now: number): Promise<void> {
    if (now - this.lastPurge < PURGE_EVERY_MS) return
    this.lastPurge = now
    await purgeFinishedRows(this.deps.db.q, isoAt(now - FINISHED_KEPT_MS))
  }

  /** Stops claiming, lets attempts in flight finish for up to graceMs, records them, and hands back unstarted claims. */
  override async stop(graceMs = 10_000): Promise<void> {
    // Attempts still running after the grace period keep their lease and are sent again after restart. A second
    // call waits in jobs.stop for the first, and then finds the sender closed.
    await this.jobs.stop(graceMs)
    if (this.closed) return
    this.gates.clear()
    await this.flush()
    this.closed = true
    await this.env.sender.close()
  }
}
