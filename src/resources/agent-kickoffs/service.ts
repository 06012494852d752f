// Kickoffs: handing a card to an agent. Creating one makes its run (pending) and queues delivery, which the dispatcher
// attempts at once and retries until the kickoff expires; the claim route hands kickoffs to an owner's desktop app.
import { type Actor, actorWithKind, AgentPowers, creatorId } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import { JOB_KICKOFFS } from '../../db/wakes.js'
import type { AgentKickoffsTable, AgentRunsTable, CardsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, forbidden, invalidField, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { emitAgentEvent, cancelRunIn, moveRun, recordActivity } from '../agent-runs/lifecycle.js'
import { getRun, insertRun, lockRun } from '../agent-runs/published.js'
import { defaultWorkflowOf, getWorkflow, stepsOfWorkflow } from '../agent-workflows/published.js'
import { getBoardMember } from '../boards/published.js'
import { cardViews, expandCard } from '../cards/present.js'
import { visibleCard } from '../cards/service.js'
import { getCard } from '../cards/published.js'
import { agentsOwnedBy, getAgentProfile, getUser } from '../users/published.js'
import { targetOf, usablePowers } from './delivery.js'
import { kickoffViews } from './present.js'
import { KICKOFF_LIST } from './query.js'
import type { AgentPower } from '../../access/roles.js'
import type { CreateKickoffInput, KickoffListParams, KickoffView } from './schema.js'
import { claimableKickoffs, endClaimWait, getKickoff, insertKickoff, lockKickoff, recordClaimWait, settleUndelivered, visibleKickoffsQuery } from './store.js'
import { fromJsonColumn } from '../../db/json.js'

const MINUTE = 60_000

/** Which workflow and step a kickoff names, and so its agent. */
async function resolveStep(tx: Tx, card: CardsTable, input: CreateKickoffInput & { step?: number }) {
  const { q } = tx
  let workflow = input.workflow === undefined ? undefined : await getWorkflow(q, input.workflow)
  if (input.workflow !== undefined && (!workflow || workflow.board_id !== card.board_id))
    throw invalidField('workflow', "No such workflow on the card's board.")
  if (!workflow && input.agent === undefined) {
    workflow = await defaultWorkflowOf(q, card.board_id)
    if (!workflow) throw invalidField('workflow', "Name an agent or a workflow: the card's board has no default workflow.")
  }
  if (!workflow) return { workflow: undefined, step: undefined, agentId: input.agent! }
  const steps = await stepsOfWorkflow(q, workflow.id)
  const step =
    input.step !== undefined ? steps.find((s) => s.idx === input.step) : input.agent !== undefined ? steps.find((s) => s.agent_id === input.agent) : steps[0]
  if (!step) throw invalidField('agent', 'The workflow has no step for this agent.')
  return { workflow, step, agentId: step.agent_id }
}

export interface Started {
  kickoff: AgentKickoffsTable
  run: AgentRunsTable
}

/**
 * Creates a kickoff and its run inside `tx`. `step` (a handoff) names the workflow step exactly. Delivery starts after
 * the commit; a desktop app waiting on the claim route is told.
 */
export async function startKickoffIn(deps: Deps, tx: Tx, actor: Actor, input: CreateKickoffInput & { step?: number }): Promise<Started> {
  const { q } = tx
  const card = await visibleCard(q, actor, input.card)
  const { workflow, step, agentId } = await resolveStep(tx, card, input)
  const agent = await getUser(q, agentId)
  if (!agent || agent.kind !== 'agent') throw invalidField('agent', 'No such agent.')
  if (!(await getBoardMember(q, card.board_id, agent.id))) throw invalidField('agent', `${agent.name} is not a member of the card's board.`)
  const profile = await getAgentProfile(q, agent.id)
  const asked = input.powers ?? []
  const target = await targetOf(q, { workflow_id: workflow?.id ?? null, step: step?.idx ?? null, agent_id: agent.id }, profile)
  const has = profile ? fromJsonColumn(AgentPowers, profile.powers) : []
  const foreign = asked.filter((p) => !has.includes(p))
  if (foreign.length) throw invalidField('powers', `${agent.name} does not have ${foreign.join(', ')}.`)
  const usable = usablePowers(asked, profile, target, deps.config)
  if (usable.length === 0)
    throw invalidField('powers', `${agent.name} cannot be reached: auto_start needs a wake or launch URL, service_ai needs TASKD_AI_URL on the server.`)
  const now = deps.clock.now()
  const at = isoAt(now)
  const run: AgentRunsTable = {
    id: newId(),
    kickoff_id: newId(),
    agent_id: agent.id,
    card_id: card.id,
    board_id: card.board_id,
    workflow_id: workflow?.id ?? null,
    step: step?.idx ?? null,
    step_name: step?.name ?? null,
    status: 'pending',
    summary: null,
    error: null,
    last_activity_at: at,
    created_at: at,
    finished_at: null,
  }
  const kickoff: AgentKickoffsTable = {
    id: run.kickoff_id,
    card_id: card.id,
    board_id: card.board_id,
    agent_id: agent.id,
    workflow_id: run.workflow_id,
    step: run.step,
    step_name: run.step_name,
    powers: JSON.stringify(asked),
    model: input.model ?? null,
    effort: input.effort ?? null,
    message: input.message ?? null,
    status: 'pending',
    via: null,
    attempts: 0,
    next_attempt_at: now,
    lease_until: 0,
    last_error: null,
    expires_at: isoAt(now + (input.expires_in_minutes ?? 1440) * MINUTE),
    run_id: run.id,
    requested_by: JSON.stringify(actorWithKind(actor)),
    requester_id: creatorId(actor),
    delivered_at: null,
    created_at: at,
    updated_at: at,
    // A kickoff an automation run made (or that came of one) hands its chain on to what the agent does with it.
    chain: JSON.stringify(actor.chain ?? []),
  }
  await insertRun(q, run)
  await insertKickoff(q, kickoff)
  tx.afterCommit(() => {
    deps.onKickoffsQueued()
    if (usable.includes('local_access')) deps.claimWaiters.notify([agent.id])
  })
  // The dispatchers and claim long polls of other processes on the database too (PostgreSQL).
  tx.wake('jobs', JOB_KICKOFFS)
  if (usable.includes('local_access')) tx.wake('claims', agent.id)
  return { kickoff, run }
}

export const createKickoff = (deps: Deps, actor: Actor, input: CreateKickoffInput): Promise<KickoffView> =>
  deps.db.tx(async (tx) => (await kickoffViews(tx.q, [(await startKickoffIn(deps, tx, actor, input)).kickoff]))[0])

/** Marks a kickoff delivered, with agent.kickoff_delivered; false when it was settled meanwhile (cancelled, claimed). */
export async function deliverIn(deps: Deps, tx: Tx, actor: Actor, kickoff: AgentKickoffsTable, via: AgentPower): Promise<boolean> {
  const now = deps.clock.now()
  const at = isoAt(now)
  const set = { status: 'delivered' as const, via, delivered_at: at, attempts: kickoff.attempts + 1, lease_until: 0, last_error: null, updated_at: at }
  // A claim takes only a kickoff no dispatcher is attempting (the dispatcher delivers what it holds the lease of).
  if (!(await settleUndelivered(tx.q, kickoff.id, set, via === 'local_access' ? now : undefined))) return false
  const run = (await getRun(tx.q, kickoff.run_id))!
  await recordActivity(deps, tx, actor, run.id, 'delivered', via)
  await emitAgentEvent(deps, tx, actor, 'agent.kickoff_delivered', run, { kickoff_id: kickoff.id, via })
  return true
}

/** A kickoff whose time is up: expired (agent.kickoff_expired), and its run failed if the agent never started it. */
export async function expireIn(deps: Deps, tx: Tx, actor: Actor, kickoff: AgentKickoffsTable): Promise<void> {
  const at = isoAt(deps.clock.now())
  if (!(await settleUndelivered(tx.q, kickoff.id, { status: 'expired', lease_until: 0, updated_at: at }))) return
  const run = (await lockRun(tx.q, kickoff.run_id))!
  await emitAgentEvent(deps, tx, actor, 'agent.kickoff_expired', run, { kickoff_id: kickoff.id, expired_at: at })
  if (run.status === 'pending') {
    const error = 'The kickoff expired before anything picked it up.'
    await moveRun(deps, tx, actor, run, {
      status: 'failed',
      set: { error },
      activity: { type: 'expired', text: error },
      event: 'agent.failed',
      fields: { error },
    })
  }
}

export function listKickoffs(deps: Deps, actor: Actor, params: ListParams & KickoffListParams) {
  const { q } = deps.db
  return listPage(deps.db, visibleKickoffsQuery(q, actor.user, params), KICKOFF_LIST, params, async (rows: AgentKickoffsTable[], expand) =>
    expandCard(q, await kickoffViews(q, rows), expand),
  )
}

async function kickoffInSight(q: Tx['q'], actor: Actor, id: string, lock = false): Promise<AgentKickoffsTable> {
  const kickoff = await (lock ? lockKickoff : getKickoff)(q, id)
  if (!kickoff) throw notFound('kickoff')
  await visibleCard(q, actor, kickoff.card_id).catch(() => {
    throw notFound('kickoff')
  })
  return kickoff
}

export async function getKickoffFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  return (await expandCard(q, await kickoffViews(q, [await kickoffInSight(q, actor, id)]), parseExpand(expand, KICKOFF_LIST.expand)))[0]
}

/** People (not agents) stop a kickoff not yet delivered; its run is cancelled with it (agent.cancelled). */
export const cancelKickoff = (deps: Deps, actor: Actor, id: string): Promise<KickoffView> =>
  deps.db.tx(async (tx) => {
    const kickoff = await kickoffInSight(tx.q, actor, id, true)
    if (actor.user.kind === 'agent') throw forbidden('Agents cannot cancel kickoffs; a person does.')
    if (kickoff.status !== 'pending' && kickoff.status !== 'queued')
      throw conflict(`The kickoff is ${kickoff.status}: only a pending or queued kickoff can be cancelled.`)
    const run = (await lockRun(tx.q, kickoff.run_id))!
    await cancelRunIn(deps, tx, actor, run)
    return (await kickoffViews(tx.q, [(await getKickoff(tx.q, id))!]))[0]
  })

/**
 * The owner's desktop app (or the agent itself) takes the oldest kickoff it may deliver through local_access: one of
 * its agents', not being attempted, and past its auto_start attempt when it has one. Waits up to `waitSeconds`.
 */
export async function claimKickoff(deps: Deps, actor: Actor, waitSeconds: number, signal?: AbortSignal) {
  const agents = actor.user.kind === 'agent' ? [actor.user.id] : await agentsOwnedBy(deps.db.q, actor.user.id)
  if (agents.length === 0) throw forbidden('Only an agent, or the owner of one, claims kickoffs.')
  const deadline = Date.now() + waitSeconds * 1000
  if (waitSeconds <= 0) return claimOnce(deps, actor, agents)
  // Seen by the dispatchers of every process on this database, not only this one's (deps.claimWaiters).
  const waitId = newId()
  const { q } = deps.db
  await recordClaimWait(q, waitId, agents, deps.clock.now() + waitSeconds * 1000 + deps.config.pollMs, deps.clock.now())
  try {
    for (;;) {
      const claimed = await claimOnce(deps, actor, agents)
      const left = deadline - Date.now()
      if (claimed || left <= 0 || signal?.aborted || deps.claimWaiters.closed) return claimed
      await deps.claimWaiters.wait(agents, Math.min(left, deps.config.pollMs), signal)
    }
  } finally {
    // When this fails (the database is closing), the rows end by themselves at their `until`.
    await endClaimWait(q, waitId, agents).catch(() => {})
  }
}

/** One look for a kickoff the caller may claim; it is delivered to the caller in the same transaction. */
function claimOnce(deps: Deps, actor: Actor, agents: readonly string[]) {
  return deps.db.tx(async (tx) => {
    const now = deps.clock.now()
    for (const k of await claimableKickoffs(tx.q, actor.user, agents, now, isoAt(now))) {
      const profile = await getAgentProfile(tx.q, k.agent_id)
      const usable = usablePowers(fromJsonColumn(AgentPowers, k.powers), profile, await targetOf(tx.q, k, profile), deps.config)
      if (!usable.includes('local_access') || (usable[0] === 'auto_start' && k.attempts === 0)) continue
      if (await deliverIn(deps, tx, actor, k, 'local_access')) {
        const card = (await cardViews(tx.q, [(await getCard(tx.q, k.card_id))!]))[0]
        return { kickoff: (await kickoffViews(tx.q, [(await getKickoff(tx.q, k.id))!]))[0], card }
      }
    }
    return undefined
  })
}
