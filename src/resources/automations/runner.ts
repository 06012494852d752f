// The automation runner: a user of the job runner that runs claimed runs' steps in order and records each step as it
// finishes: a card step in the transaction that made the change, so a run resumed after a crash (its lease ran out)
// never does a finished step again. Each round it also queues the runs of schedules whose slot has come.
import type { Dispatcher } from 'undici'
import type { Actor } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import { nextTurn } from '../../db/database.js'
import type { AutomationRunsTable, AutomationsTable, UsersTable } from '../../db/types.js'
import { fromJsonColumn, StringList } from '../../db/json.js'
import type { Deps } from '../../deps.js'
import { JobRunner } from '../../jobs/runner.js'
import { JobWorker } from '../../jobs/worker.js'
import { boardInTrash } from '../boards/service.js'
import { RunContext, type StepScope } from './placeholders.js'
import { RunActor, type Step, StepList } from './schema.js'
import { failureText, runCardStep, runHttpStep, StepFailed } from './steps.js'
import {
  anyDueRun,
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

/** Why taskd paused an automation, as a run it stopped says. */
const PAUSED = {
  chain_too_deep: 'a chain of automations starting one another grew too long.',
  too_many_runs: 'it started more runs in a minute than TASKD_AUTOMATION_RUNS_PER_MINUTE allows.',
} as const

/** A run ready for its next step: what it acts as and on, and the outputs of the steps already done. */
interface Resumed {
  automation: AutomationsTable
  steps: Step[]
  /** Steps already recorded (all succeeded). */
  done: number
  outputs: unknown[]
  context: RunContext
  actor: Actor
}

/** A step that failed: its error, its output (an http_request's response), and when it started. */
type Failure = { error: string; output: unknown; startedAt: string }

/** The identity a run acts as: changes land on its automation's board only, attributed to what started it. */
function runActor(automation: AutomationsTable, run: AutomationRunsTable): Actor {
  const started = fromJsonColumn(RunActor, run.actor)
  const as =
    started.type === 'user'
      ? { id: started.id, name: started.name }
      : started.type === 'incoming_webhook'
        ? { id: started.id, name: started.name, kind: 'incoming_webhook' as const }
        : { id: automation.id, name: automation.name, kind: 'automation' as const }
  // A stand-in that matches no member row and is never written: visibility and attribution read `run`.
  const user: UsersTable = { id: `automation:${automation.id}`, email: '', name: as.name, role: 'member', kind: 'human', created_at: automation.created_at }
  // What the run does carries its chain, its own automation last: none of them starts again from it.
  const chain = [...fromJsonColumn(StringList, run.chain), automation.id]
  return { user, tokenId: '', permission: 'write', run: { id: run.id, board: automation.board_id, as }, chain }
}

export class AutomationRunner extends JobWorker<AutomationRunsTable> {
  protected readonly jobs: JobRunner<AutomationRunsTable>
  private readonly leaseMs: number
  private readonly log: (msg: string, err?: unknown) => void
  private finished = 0

  constructor(
    private readonly deps: Deps,
    private readonly opts: RunnerOptions = {},
  ) {
    super()
    this.leaseMs = deps.config.automationLeaseMs ?? DEFAULT_LEASE_MS
    this.log = opts.log ?? ((msg, err) => console.error(msg, err))
    this.jobs = new JobRunner(deps, {
      name: 'automation runs',
      queue: { hasDue: anyDueRun, claim: claimRuns, nextDueAt: nextScheduleAfter, release: releaseRuns },
      run: (run) => this.execute(run),
      concurrency: opts.concurrency ?? 8,
      pollMs: opts.pollMs ?? 1000,
      leaseMs: this.leaseMs,
      log: this.log,
      // Unexpected (a database error): the lease brings the run back later, resumed after its last recorded step.
      failure: () => 'automation run failed unexpectedly',
      beforeClaim: (now) => this.queueSchedules(now),
    })
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

  /** Runs the steps not yet recorded, in order; a failed step fails the run and skips the rest. */
  private async execute(run: AutomationRunsTable): Promise<void> {
    const resumed = await this.resume(run)
    if (!resumed) return
    for (let i = resumed.done; i < resumed.steps.length; i++) {
      // A turn of the event loop between steps: requests are read and answered between a flood of runs' steps.
      if (i > resumed.done) await nextTurn()
      if (this.jobs.stopped) return releaseRuns(this.deps.db.q, [run.id]) // the run goes on after restart, from this step
      await renewLease(this.deps.db.q, run.id, this.deps.clock.now() + this.leaseMs)
      // Between steps the automation is read again: deleted, turned off, or its creator gone, the run stops here.
      if (i > resumed.done && !(await this.mayGoOn(run))) return
      const failure = await this.runStep(run, resumed, i)
      if (failure) return this.failStep(run, resumed.steps, i, failure)
    }
    await this.finish(run, 'succeeded')
  }

  /** Loads what the run needs to go on, or finishes it (refused, claimed too often, a failed step) and returns nothing. */
  private async resume(run: AutomationRunsTable): Promise<Resumed | undefined> {
    const { q } = this.deps.db
    const automation = await getAutomation(q, run.automation_id)
    if (!automation) return // deleted, with its runs
    const refusal = await this.refusal(automation)
    if (refusal) return void (await this.finish(run, 'failed', refusal))
    if (run.claims > MAX_CLAIMS)
      return void (await this.finish(
        run,
        'failed',
        `The run did not finish in ${MAX_CLAIMS} attempts (an unexpected error or a crash each time; see the server log).`,
      ))
    if (!run.started_at) await updateRunRow(q, run.id, { started_at: isoAt(this.deps.clock.now()) })
    const done = await stepsOfRuns(q, [run.id])
    if (done.some((s) => s.status !== 'succeeded')) return void (await this.finish(run, 'failed'))
    return {
      automation,
      steps: fromJsonColumn(StepList, run.steps),
      done: done.length,
      outputs: done.map((s) => (s.output === null ? null : JSON.parse(s.output))),
      context: fromJsonColumn(RunContext, run.context),
      actor: runActor(automation, run),
    }
  }

  /** Whether the automation still exists and may act; finishes the run as failed when it may not. */
  private async mayGoOn(run: AutomationRunsTable): Promise<boolean> {
    const current = await getAutomation(this.deps.db.q, run.automation_id)
    if (!current) return false
    const stop = await this.refusal(current)
    if (stop) await this.finish(run, 'failed', stop)
    return !stop
  }

  /**
   * Why the automation may not go on, if so: turned off, its board in the trash, or its creator no longer an owner,
   * an admin or a member of the board (as for webhook subscriptions: who left a board stops acting on it).
   */
  private async refusal(automation: AutomationsTable): Promise<string | undefined> {
    const { q } = this.deps.db
    if (!automation.active)
      return automation.paused_reason
        ? `taskd paused the automation: ${PAUSED[automation.paused_reason]}`
        : 'The automation was turned off before the run finished.'
    if (await boardInTrash(q, automation.board_id)) return "The automation's board is in the trash."
    if (!(await creatorStillAllowed(q, automation))) return "The automation's creator is no longer a member of its board."
    return undefined
  }

  /** Step `i`, recorded with its output when it succeeds; what went wrong when it fails (recorded by failStep). */
  private async runStep(run: AutomationRunsTable, resumed: Resumed, i: number): Promise<Failure | undefined> {
    const { deps } = this
    const step = resumed.steps[i]
    const now = deps.clock.now()
    const scope: StepScope = { context: resumed.context, runId: run.id, outputs: resumed.outputs, now: isoAt(now) }
    const succeeded = (output: unknown) => ({
      run_id: run.id,
      idx: i + 1,
      type: step.type,
      started_at: isoAt(now),
      status: 'succeeded' as const,
      output: JSON.stringify(output),
      error: null,
      finished_at: isoAt(deps.clock.now()),
    })
    try {
      if (step.type === 'http_request') {
        const output = await runHttpStep(deps, step, scope, resumed.actor.chain ?? [], this.opts.dispatcher)
        await insertRunStep(deps.db.q, succeeded(output))
        resumed.outputs.push(output)
      } else {
        // The change and its record commit together: a crash leaves either both or neither.
        const output = await deps.db.tx(async (tx) => {
          const out = await runCardStep(deps, tx, resumed.actor, step, scope)
          await insertRunStep(tx.q, succeeded(out))
          return out
        })
        resumed.outputs.push(output)
      }
      return undefined
    } catch (err) {
      return { error: failureText(err), output: err instanceof StepFailed ? err.output : null, startedAt: isoAt(now) }
    }
  }

  /** Records step `i` as failed and the steps after it as skipped, in one transaction, and fails the run. */
  private async failStep(run: AutomationRunsTable, steps: readonly Step[], i: number, failure: Failure): Promise<void> {
    const { deps } = this
    await deps.db.tx(async ({ q }) => {
      await insertRunStep(q, {
        run_id: run.id,
        idx: i + 1,
        type: steps[i].type,
        status: 'failed',
        output: JSON.stringify(failure.output),
        error: failure.error,
        started_at: failure.startedAt,
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
    await this.finish(run, 'failed')
  }

  private async finish(run: AutomationRunsTable, status: 'succeeded' | 'failed', error: string | null = null): Promise<void> {
    const { q } = this.deps.db
    await updateRunRow(q, run.id, { status, error, finished_at: isoAt(this.deps.clock.now()), lease_until: 0 })
    if (++this.finished % PRUNE_EVERY === 0) await pruneRuns(q, run.automation_id)
  }
}
