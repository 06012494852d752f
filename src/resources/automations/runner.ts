// The automation runner: the same style as the webhook outbox scheduler. It claims due runs under a lease, runs their
// steps in order with bounded concurrency, and records each step as it finishes: a card step in the transaction that
// made the change, so a run resumed after a crash (its lease ran out) never does a finished step again. It also queues
// the runs of schedules whose slot has come.
import PQueue from 'p-queue'
import type { Dispatcher } from 'undici'
import type { Actor } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { AutomationRunsTable, AutomationsTable, UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { Pump } from '../../pump.js'
import { getBoard } from '../boards/store.js'
import type { RunContext, StepScope } from './placeholders.js'
import type { RunActor, Step } from './schema.js'
import { failureText, runCardStep, runHttpStep, StepFailed } from './steps.js'
import {
  claimRuns,
  creatorStillAllowed,
  dueSchedules,
  getAutomation,
  insertRunStep,
  nextScheduleAfter,
  pruneRuns,
  releaseRuns,
  renewLease,
  stepsOfRuns,
  updateRunRow,
} from './store.js'
import { queueScheduledRun } from './triggers.js'

export interface RunnerOptions {
  /** Runs in progress at once. */
  concurrency?: number
  /** Safety-net poll; commits wake the runner at once and due times arm their own timer. */
  pollMs?: number
  /** For http_request steps (tests inject one). */
  dispatcher?: Dispatcher
  log?: (msg: string, err?: unknown) => void
}

/** Longest step (an http_request's 30 s timeout) plus a margin: a lease outlives any one step, and is renewed per step. */
const DEFAULT_LEASE_MS = 50_000
const PRUNE_EVERY = 20
/** Claims after which a run that never finishes (an unexpected error, a crash) fails instead of being tried forever. */
const MAX_CLAIMS = 5

/** The identity a run acts as: changes land on its automation's board only, attributed to what started it. */
function runActor(automation: AutomationsTable, run: AutomationRunsTable): Actor {
  const started = JSON.parse(run.actor) as RunActor
  const as =
    started.type === 'user'
      ? { id: started.id, name: started.name }
      : started.type === 'incoming_webhook'
        ? { id: started.id, name: started.name, kind: 'incoming_webhook' as const }
        : { id: automation.id, name: automation.name, kind: 'automation' as const }
  // A stand-in that matches no member row and is never written: visibility and attribution read `run`.
  const user: UsersTable = { id: `automation:${automation.id}`, email: '', name: as.name, role: 'member', kind: 'human', created_at: automation.created_at }
  return { user, tokenId: '', permission: 'write', run: { id: run.id, board: automation.board_id, as } }
}

export class AutomationRunner {
  private readonly queue: PQueue
  private readonly concurrency: number
  private readonly pollMs: number
  private readonly leaseMs: number
  private readonly log: (msg: string, err?: unknown) => void
  /** Claimed by this process and not finished: this process never runs one twice at once. */
  private readonly inflight = new Set<string>()
  /** Claimed but not started; handed back on shutdown. */
  private readonly waiting = new Set<string>()
  private stopped = false
  /** Claims (claim()) one at a time, after wake() or the poll; readiness asks it whether the worker is alive. */
  readonly pump = new Pump(() => this.claim())
  private dueTimer?: NodeJS.Timeout
  private finished = 0

  constructor(
    private readonly deps: Deps,
    private readonly opts: RunnerOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 8
    this.pollMs = opts.pollMs ?? 1000
    this.leaseMs = deps.config.automationLeaseMs ?? DEFAULT_LEASE_MS
    this.queue = new PQueue({ concurrency: this.concurrency })
    this.log = opts.log ?? ((msg, err) => console.error(msg, err))
  }

  start(): void {
    this.pump.start(this.pollMs)
  }

  /** Called after a commit that queued runs (deps.onRunsQueued); claims on the next turn of the event loop. */
  wake(): void {
    this.pump.wake()
  }

  private async claim(): Promise<number> {
    if (this.stopped) return 0
    const now = this.deps.clock.now()
    let runs: AutomationRunsTable[]
    try {
      await this.queueSchedules(now)
      // Only what can start now: a claimed run never waits in the queue while its lease runs out.
      const free = this.concurrency - this.inflight.size
      if (free <= 0) return 0
      runs = (await this.deps.db.tx(({ q }) => claimRuns(q, now, now + this.leaseMs, free))).filter((r) => !this.inflight.has(r.id))
      if (this.pump.started) await this.armDueTimer(now)
    } catch (err) {
      this.log('automation runs: claim failed', err)
      return 0
    }
    for (const run of runs) {
      this.inflight.add(run.id)
      this.waiting.add(run.id)
      void this.queue.add(async () => {
        this.waiting.delete(run.id)
        try {
          await this.execute(run)
        } catch (err) {
          // Unexpected (a database error): the lease brings the run back later, resumed after its last recorded step.
          this.log('automation run failed unexpectedly', err)
        } finally {
          this.inflight.delete(run.id)
          this.wake() // a free slot: claim what else is due
        }
      })
    }
    return runs.length
  }

  private async queueSchedules(now: number): Promise<void> {
    for (const a of await dueSchedules(this.deps.db.q, now, 100)) {
      try {
        await this.deps.db.tx((tx) => queueScheduledRun(this.deps, tx, a))
      } catch (err) {
        this.log(`automation ${a.id}: queueing its scheduled run failed`, err)
      }
    }
  }

  /** A timer for the next schedule slot before the next poll (runs are due when queued: commits wake the runner). */
  private async armDueTimer(now: number): Promise<void> {
    const next = await nextScheduleAfter(this.deps.db.q, now)
    if (next === undefined || next - now >= this.pollMs) return
    const wait = next - now
    clearTimeout(this.dueTimer)
    this.dueTimer = setTimeout(() => this.wake(), wait)
    this.dueTimer.unref()
  }

  private async finish(run: AutomationRunsTable, status: 'succeeded' | 'failed', error: string | null = null): Promise<void> {
    const { q } = this.deps.db
    await updateRunRow(q, run.id, { status, error, finished_at: isoAt(this.deps.clock.now()), lease_until: 0 })
    if (++this.finished % PRUNE_EVERY === 0) await pruneRuns(q, run.automation_id)
  }

  /**
   * Why the automation may not go on, if so: turned off, its board in the trash, or its creator no longer an owner,
   * an admin or a member of the board (as for webhook subscriptions: who left a board stops acting on it).
   */
  private async refusal(automation: AutomationsTable): Promise<string | undefined> {
    const { q } = this.deps.db
    if (!automation.active) return 'The automation was turned off before the run finished.'
    if ((await getBoard(q, automation.board_id))?.trashed_at) return "The automation's board is in the trash."
    if (!(await creatorStillAllowed(q, automation))) return "The automation's creator is no longer a member of its board."
    return undefined
  }

  /** Runs the steps not yet recorded, in order; a failed step fails the run and skips the rest. */
  private async execute(run: AutomationRunsTable): Promise<void> {
    const { deps } = this
    const { q } = deps.db
    const automation = await getAutomation(q, run.automation_id)
    if (!automation) return // deleted, with its runs
    const refusal = await this.refusal(automation)
    if (refusal) return this.finish(run, 'failed', refusal)
    if (run.claims > MAX_CLAIMS)
      return this.finish(run, 'failed', `The run did not finish in ${MAX_CLAIMS} attempts (an unexpected error or a crash each time; see the server log).`)
    if (!run.started_at) await updateRunRow(q, run.id, { started_at: isoAt(deps.clock.now()) })
    const steps = JSON.parse(run.steps) as Step[]
    const done = await stepsOfRuns(q, [run.id])
    if (done.some((s) => s.status !== 'succeeded')) return this.finish(run, 'failed')
    const context = JSON.parse(run.context) as RunContext
    const outputs: unknown[] = done.map((s) => (s.output === null ? null : JSON.parse(s.output)))
    const actor = runActor(automation, run)
    for (let i = done.length; i < steps.length; i++) {
      if (this.stopped) return releaseRuns(q, [run.id]) // the run goes on after restart, from this step
      const step = steps[i]
      const now = deps.clock.now()
      await renewLease(q, run.id, now + this.leaseMs)
      if (i > done.length) {
        // Between steps the automation is read again: deleted, turned off, or its creator gone, the run stops here.
        const current = await getAutomation(q, run.automation_id)
        if (!current) return
        const stop = await this.refusal(current)
        if (stop) return this.finish(run, 'failed', stop)
      }
      const scope: StepScope = { context, runId: run.id, outputs, now: isoAt(now) }
      const row = { run_id: run.id, idx: i + 1, type: step.type, started_at: isoAt(now) }
      let failure: { error: string; output: unknown } | undefined
      try {
        if (step.type === 'http_request') {
          const output = await runHttpStep(deps, step, scope, this.opts.dispatcher)
          await insertRunStep(q, { ...row, status: 'succeeded', output: JSON.stringify(output), error: null, finished_at: isoAt(deps.clock.now()) })
          outputs.push(output)
        } else {
          // The change and its record commit together: a crash leaves either both or neither.
          const output = await deps.db.tx(async (tx) => {
            const out = await runCardStep(deps, tx, actor, step, scope)
            await insertRunStep(tx.q, { ...row, status: 'succeeded', output: JSON.stringify(out), error: null, finished_at: isoAt(deps.clock.now()) })
            return out
          })
          outputs.push(output)
        }
      } catch (err) {
        failure = { error: failureText(err), output: err instanceof StepFailed ? err.output : null }
      }
      if (failure) {
        await deps.db.tx(async ({ q }) => {
          await insertRunStep(q, {
            ...row,
            status: 'failed',
            output: JSON.stringify(failure.output),
            error: failure.error,
            finished_at: isoAt(deps.clock.now()),
          })
          for (let k = i + 1; k < steps.length; k++) {
            await insertRunStep(q, {
              run_id: run.id,
              idx: k + 1,
              type: steps[k].type,
              status: 'skipped',
              output: null,
              error: null,
              started_at: null,
              finished_at: null,
            })
          }
        })
        return this.finish(run, 'failed')
      }
    }
    await this.finish(run, 'succeeded')
  }

  /** Test driver: queues due schedules, runs everything due at the clock's current time, and waits for it. */
  async runOnce(): Promise<number> {
    let total = 0
    for (;;) {
      const n = await this.pump.run()
      total += n
      await this.queue.onIdle()
      if (n === 0) return total
    }
  }

  /** Stops claiming; runs in progress stop before their next step (their lease brings them back after restart). */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    const pumped = this.pump.stop()
    clearTimeout(this.dueTimer)
    this.queue.clear()
    const unstarted = [...this.waiting]
    this.waiting.clear()
    for (const id of unstarted) this.inflight.delete(id)
    try {
      await releaseRuns(this.deps.db.q, unstarted)
    } catch (err) {
      this.log('automation runs: releasing claims failed', err)
    }
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.queue.onIdle(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))])
    clearTimeout(timer)
    await pumped
  }
}
