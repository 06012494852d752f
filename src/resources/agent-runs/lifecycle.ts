// How a run's status changes: the one place that writes the new status with its activity entry and emits the agent
// event (data: the agent, the run with its new status, the task and board, then the event's own fields). Kickoffs,
// questions and the run routes all change runs through here; the dispatcher's stall sweep too.
import { type Actor, actorWithKind } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import type { AgentRunsTable, UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent, type NewEvent } from '../../events/emit.js'
import type { EventData, EventName } from '../../events/fields.js'
import { newId } from '../../ids.js'
import { taskEventRefs } from '../cards/present.js'
import { getCard } from '../cards/published.js'
import { cancelUndelivered } from '../agent-kickoffs/published.js'
import { getUser } from '../users/published.js'
import { type AgentRunStatus, FINISHED } from './schema.js'
import { insertActivity, lockRun, quietRuns, updateRunRow } from './store.js'

type AgentEvent = Extract<EventName, `agent.${string}`>
/** An agent event's own fields: its data without the agent, run, task and board every agent event carries. */
type AgentFields<N extends AgentEvent> = Omit<EventData<N>, 'agent' | 'run' | 'card' | 'board'>
/** The fields argument: required when the event has fields of its own. */
type FieldsArg<N extends AgentEvent> = [keyof AgentFields<N>] extends [never] ? [fields?: AgentFields<N>] : [fields: AgentFields<N>]
/** An event of a transition with its fields, one variant per event, so a wrong field is a compile error. */
type TransitionEvent = {
  [N in AgentEvent]: { event: N } & ([keyof AgentFields<N>] extends [never] ? { fields?: AgentFields<N> } : { fields: AgentFields<N> })
}[AgentEvent]

const SYSTEM_USER: UsersTable = { id: 'taskd', email: '', name: 'taskd', role: 'member', kind: 'human', created_at: '' }
/** taskd itself, for what time alone does (a kickoff expires, a run stalls); never written as a user. */
export const SYSTEM_ACTOR: Actor = { user: SYSTEM_USER, tokenId: '', permission: 'write' }
/** An agent acting by itself, outside a request (a service AI turn). */
export const actingAgent = (agent: UsersTable): Actor => ({ user: agent, tokenId: '', permission: 'write' })

const byOf = (actor: Actor) => (actor === SYSTEM_ACTOR ? { id: 'taskd', name: 'taskd', kind: 'system' } : actorWithKind(actor))

export async function recordActivity(deps: Deps, tx: Tx, actor: Actor, runId: string, type: string, text: string | null = null): Promise<void> {
  await insertActivity(tx.q, { id: newId(), run_id: runId, type, text, by_actor: JSON.stringify(byOf(actor)), at: isoAt(deps.clock.now()) })
}

/** Emits an agent event; the signature checks its fields against the event's payload. */
export const emitAgentEvent = <N extends AgentEvent>(deps: Deps, tx: Tx, actor: Actor, name: N, run: AgentRunsTable, ...[fields]: FieldsArg<N>) =>
  emitWithFields(deps, tx, actor, name, run, fields)

async function emitWithFields(deps: Deps, tx: Tx, actor: Actor, name: AgentEvent, run: AgentRunsTable, fields: object = {}): Promise<void> {
  const agent = await getUser(tx.q, run.agent_id)
  const refs = await taskEventRefs(tx.q, deps.config, (await getCard(tx.q, run.card_id))!)
  const data = { agent: { id: run.agent_id, name: agent?.name ?? null }, run: { id: run.id, status: run.status }, ...refs, ...fields }
  // The callers' types checked the fields per event (emitAgentEvent, Transition); a spread cannot be followed back to one.
  await emitEvent(deps, tx, { name, boardId: run.board_id, data, actor } as NewEvent)
}

export type Transition = {
  status: AgentRunStatus
  /** Other columns to write (summary, error, last_activity_at). */
  set?: Partial<AgentRunsTable>
  activity?: { type: string; text?: string | null }
} & (TransitionEvent | { event?: undefined })

/** Moves a run to a new status (finished_at set when it ends), records the activity and emits the event. */
export async function moveRun(deps: Deps, tx: Tx, actor: Actor, run: AgentRunsTable, t: Transition): Promise<AgentRunsTable> {
  const ends = FINISHED.includes(t.status) && !FINISHED.includes(run.status)
  const set: Partial<AgentRunsTable> = { status: t.status, ...t.set, ...(ends ? { finished_at: isoAt(deps.clock.now()) } : {}) }
  await updateRunRow(tx.q, run.id, set)
  const next = { ...run, ...set }
  if (t.activity) await recordActivity(deps, tx, actor, run.id, t.activity.type, t.activity.text ?? null)
  if (t.event) await emitAgentEvent(deps, tx, actor, t.event, next, t.fields)
  return next
}

/** Cancels a run that has not ended, and its kickoff if that was not delivered yet. */
export async function cancelRunIn(deps: Deps, tx: Tx, actor: Actor, run: AgentRunsTable): Promise<AgentRunsTable> {
  await cancelUndelivered(tx.q, run.kickoff_id, isoAt(deps.clock.now()))
  return moveRun(deps, tx, actor, run, {
    status: 'cancelled',
    activity: { type: 'cancelled' },
    event: 'agent.cancelled',
    fields: { cancelled_by: { id: actor.user.id, name: actor.user.name } },
  })
}

/** Flags running runs with no activity for TASKD_AGENT_STALL_MINUTES as stalled (agent.stalled); returns how many. */
export async function flagStalledRuns(deps: Deps): Promise<number> {
  const now = deps.clock.now()
  const before = isoAt(now - deps.config.agentStallMinutes * 60_000)
  let flagged = 0
  for (const { id } of await quietRuns(deps.db.q, before, 100)) {
    flagged += await deps.db.tx(async (tx) => {
      const run = await lockRun(tx.q, id)
      if (!run || run.status !== 'running' || run.last_activity_at >= before) return 0 // it spoke up meanwhile
      await moveRun(deps, tx, SYSTEM_ACTOR, run, {
        status: 'stalled',
        activity: { type: 'stalled' },
        event: 'agent.stalled',
        fields: { last_activity_at: run.last_activity_at },
      })
      return 1
    })
  }
  return flagged
}
