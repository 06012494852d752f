// Agent runs: the list, the activity an agent reports with its own token, and what people do with a run (approve,
// return, cancel). Completing a workflow step hands the card to the next step's agent (agent.handoff, a new kickoff).
import { type Actor } from '../../access/roles.js'
import { visibleBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q, Tx } from '../../db/database.js'
import type { AgentRunActivityTable, AgentRunsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, forbidden, invalidField, notFound } from '../../errors.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { getKickoff } from '../agent-kickoffs/published.js'
import { startKickoffIn } from '../agent-kickoffs/service.js'
import { fromJsonColumn, StringList } from '../../db/json.js'
import { stepsOfWorkflow } from '../agent-workflows/published.js'
import { expandCard } from '../cards/present.js'
import { updateCardIn } from '../cards/service.js'
import { getUser } from '../users/published.js'
import { cancelRunIn, emitAgentEvent, moveRun, recordActivity } from './lifecycle.js'
import { activityView, runViews } from './present.js'
import { AGENT_ACTIVITY_LIST, AGENT_RUN_LIST } from './query.js'
import { type ActivityInput, type AgentRunView, FINISHED, type RunListParams } from './schema.js'
import { activityQuery, getRun, lockRun, updateRunRow, visibleRunsQuery } from './store.js'

/** The run if the caller sees its board; 404 otherwise. `lock`: for a change (changes of one run take turns). */
export async function runInSight(q: Q, actor: Actor, id: string, lock = false): Promise<AgentRunsTable> {
  const run = await (lock ? lockRun : getRun)(q, id)
  if (!run) throw notFound('agent run')
  await visibleBoard(q, actor, run.board_id, 'agent run')
  return run
}

/** Only people decide about a run's work: agents get 403. */
export function assertPerson(actor: Actor, what: string): void {
  if (actor.user.kind === 'agent') throw forbidden(`Agents cannot ${what}; a person with write access to the board does.`)
}

const ended = (run: AgentRunsTable) => {
  if (FINISHED.includes(run.status)) throw conflict(`The run has ended (${run.status}).`)
}

const view = async (q: Q, run: AgentRunsTable): Promise<AgentRunView> => (await runViews(q, [run]))[0]

export function listRuns(deps: Deps, actor: Actor, params: ListParams & RunListParams) {
  const { q } = deps.db
  return listPage(deps.db, visibleRunsQuery(q, actor.user, params), AGENT_RUN_LIST, params, async (rows: AgentRunsTable[], expand) =>
    expandCard(q, await runViews(q, rows), expand),
  )
}

export async function getRunFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  return (await expandCard(q, [await view(q, await runInSight(q, actor, id))], parseExpand(expand, AGENT_RUN_LIST.expand)))[0]
}

export async function listActivity(deps: Deps, actor: Actor, id: string, params: ListParams) {
  const { q } = deps.db
  await runInSight(q, actor, id)
  return listPage(deps.db, activityQuery(q, id), AGENT_ACTIVITY_LIST, params, async (rows: AgentRunActivityTable[]) => rows.map(activityView), {
    anchored: true,
  })
}

/** The workflow step a run hands over to: `to` (1-based index or name), else the one after the run's. */
async function nextStep(q: Q, run: AgentRunsTable, to: number | string | undefined) {
  if (!run.workflow_id) return undefined
  const steps = await stepsOfWorkflow(q, run.workflow_id)
  if (to === undefined) return steps.find((s) => s.idx === (run.step ?? 0) + 1)
  return steps.find((s) => (typeof to === 'number' ? s.idx === to : s.name === to))
}

/**
 * Completes a run (agent.completed; after agent.approved when a person approved it), then hands the card to the next
 * workflow step's agent, or (a person's approval at the last step) completes the card.
 */
async function completeRun(
  deps: Deps,
  tx: Tx,
  actor: Actor,
  run: AgentRunsTable,
  how: { activity: { type: string; text?: string | null }; approved?: boolean; toStep?: number | string; explicit?: boolean },
): Promise<AgentRunsTable> {
  const step = await nextStep(tx.q, run, how.toStep)
  if (how.explicit && !step)
    throw invalidField('to_step', run.workflow_id ? 'The workflow has no such step after this one.' : 'The run is not part of a workflow.')
  const done = await moveRun(deps, tx, actor, run, { status: 'completed', activity: how.activity })
  if (how.approved) await emitAgentEvent(deps, tx, actor, 'agent.approved', done, { approved_by: { id: actor.user.id, name: actor.user.name } })
  await emitAgentEvent(deps, tx, actor, 'agent.completed', done)
  if (step) {
    // The next step's kickoff goes on with this one's chain: an automation that led here does not start again from it.
    const chain = fromJsonColumn(StringList, (await getKickoff(tx.q, run.kickoff_id))?.chain ?? '[]')
    const handing = { ...actor, chain: [...new Set([...(actor.chain ?? []), ...chain])] }
    const next = await startKickoffIn(deps, tx, handing, { card: run.card_id, workflow: run.workflow_id!, step: step.idx })
    const from = { id: run.agent_id, name: (await getUser(tx.q, run.agent_id))?.name ?? null }
    await emitAgentEvent(deps, tx, actor, 'agent.handoff', next.run, { from_agent: from, step: step.name, kickoff_id: next.kickoff.id })
  } else if (how.approved) {
    await updateCardIn(deps, tx, actor, run.card_id, { completed: true })
  }
  return done
}

/** The run's agent reports what it is doing. */
export const reportActivity = (deps: Deps, actor: Actor, id: string, input: ActivityInput): Promise<AgentRunView> =>
  deps.db.tx(async (tx) => {
    const run = await runInSight(tx.q, actor, id, true)
    if (actor.run || actor.user.id !== run.agent_id) throw forbidden("Only the run's agent reports its activity.")
    ended(run)
    const at = isoAt(deps.clock.now())
    const spoke = { last_activity_at: at }
    let next: AgentRunsTable
    // ActivityBody requires the text each type reports (reason, summary, error), hence the `!` below.
    switch (input.type) {
      case 'started':
      case 'heartbeat': {
        const wakes = run.status === 'pending' || run.status === 'blocked' || run.status === 'stalled'
        next = { ...run, ...spoke, ...(wakes ? { status: 'running' as const } : {}) }
        await updateRunRow(tx.q, run.id, { ...spoke, status: next.status })
        if (input.type === 'started' || input.message) await recordActivity(deps, tx, actor, run.id, input.type, input.message ?? null)
        break
      }
      case 'blocked':
        next = await moveRun(deps, tx, actor, run, {
          status: 'blocked',
          set: spoke,
          activity: { type: 'blocked', text: input.reason },
          event: 'agent.blocked',
          fields: { reason: input.reason! },
        })
        break
      case 'done_proposed':
        next = await moveRun(deps, tx, actor, run, {
          status: 'done_proposed',
          set: { ...spoke, summary: input.summary },
          activity: { type: 'done_proposed', text: input.summary },
          event: 'agent.done_proposed',
          fields: { summary: input.summary! },
        })
        break
      case 'failed':
        next = await moveRun(deps, tx, actor, run, {
          status: 'failed',
          set: { ...spoke, error: input.error },
          activity: { type: 'failed', text: input.error },
          event: 'agent.failed',
          fields: { error: input.error! },
        })
        break
      case 'completed':
      case 'handoff':
        next = await completeRun(
          deps,
          tx,
          actor,
          { ...run, ...spoke },
          {
            activity: { type: input.type, text: input.message ?? null },
            toStep: input.to_step,
            explicit: input.type === 'handoff',
          },
        )
        break
    }
    return view(tx.q, next)
  })

/** A person approves the agent's done proposal: the run completes and the card is completed (or handed on). */
export const approveRun = (deps: Deps, actor: Actor, id: string): Promise<AgentRunView> =>
  deps.db.tx(async (tx) => {
    const run = await runInSight(tx.q, actor, id, true)
    assertPerson(actor, 'approve a proposal')
    if (run.status !== 'done_proposed') throw conflict(`Only a done proposal can be approved; the run is ${run.status}.`)
    return view(tx.q, await completeRun(deps, tx, actor, run, { activity: { type: 'approved' }, approved: true }))
  })

/** A person returns the proposal with feedback: the run goes on (running). */
export const returnRun = (deps: Deps, actor: Actor, id: string, feedback: string): Promise<AgentRunView> =>
  deps.db.tx(async (tx) => {
    const run = await runInSight(tx.q, actor, id, true)
    assertPerson(actor, 'return a proposal')
    if (run.status !== 'done_proposed') throw conflict(`Only a done proposal can be returned; the run is ${run.status}.`)
    const next = await moveRun(deps, tx, actor, run, {
      status: 'running',
      set: { last_activity_at: isoAt(deps.clock.now()) },
      activity: { type: 'returned', text: feedback },
      event: 'agent.returned',
      fields: { returned_by: { id: actor.user.id, name: actor.user.name }, feedback },
    })
    return view(tx.q, next)
  })

/** A person cancels a run that has not ended (and its kickoff, if undelivered). */
export const cancelRun = (deps: Deps, actor: Actor, id: string): Promise<AgentRunView> =>
  deps.db.tx(async (tx) => {
    const run = await runInSight(tx.q, actor, id, true)
    assertPerson(actor, 'cancel a run')
    ended(run)
    return view(tx.q, await cancelRunIn(deps, tx, actor, run))
  })
