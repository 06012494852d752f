// Where runs come from. Each is queued in the transaction of what starts it (an accepted incoming request, an event,
// a schedule slot), so a run is never lost and never exists without its cause; the runner starts after the commit.
import { isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import { JOB_RUNS } from '../../db/wakes.js'
import type { AutomationsTable } from '../../db/types.js'
import type { Deps, EmittedEvent } from '../../deps.js'
import { matchesSelectors } from '../../events/names.js'
import { applyFilter } from '../../filter/index.js'
import { newId } from '../../ids.js'
import type { RunContext } from './placeholders.js'
import type { RunActor, RunTrigger } from './schema.js'
import { advanceSchedule, countRunInWindow, eventAutomationsOfBoard, insertRun, pauseAutomationRow } from './store.js'
import { nextSlot } from './rules.js'
import { audit, SYSTEM } from '../audit/record.js'
import { fromJsonColumn, StringList } from '../../db/json.js'

/**
 * Automations in a chain this long start no run from it: a cascade through this many different automations is a loop
 * no single automation shows (one already in the chain never starts again from it anyway).
 */
export const MAX_CHAIN_DEPTH = 8
const MINUTE = 60_000

/**
 * Whether a run of the automation may be queued for what `chain` led to. An automation already in the chain is left
 * out (it caused this). Past the depth cap, or past its runs per minute (TASKD_AUTOMATION_RUNS_PER_MINUTE), taskd
 * pauses the automation, saying why (`paused_reason`), and queues nothing: a loop that gets past the chain, or a
 * flood, stops there until someone turns it on again.
 */
async function admitted(deps: Deps, tx: Tx, automation: { id: string }, chain: readonly string[]): Promise<boolean> {
  if (chain.includes(automation.id)) return false
  const now = deps.clock.now()
  const pause = async (reason: 'chain_too_deep' | 'too_many_runs') => {
    const paused = await pauseAutomationRow(tx.q, automation.id, reason, isoAt(now))
    if (paused) await audit(deps, tx, SYSTEM, 'automation.paused', paused, { board: paused.board_id, details: { reason } })
    return false
  }
  if (chain.length >= MAX_CHAIN_DEPTH) return pause('chain_too_deep')
  const count = await countRunInWindow(tx.q, automation.id, now - (now % MINUTE))
  if (count === undefined) return false
  if (count > deps.config.automationRunsPerMinute) return pause('too_many_runs')
  return true
}

async function queueRun(
  deps: Deps,
  tx: Tx,
  automation: { id: string; steps: string },
  run: { trigger: RunTrigger; actor: RunActor; context: RunContext; requestId?: string; chain?: readonly string[] },
): Promise<string | undefined> {
  const chain = run.chain ?? []
  if (!(await admitted(deps, tx, automation, chain))) return undefined
  const now = deps.clock.now()
  const id = newId()
  await insertRun(tx.q, {
    id,
    automation_id: automation.id,
    status: 'queued',
    trigger_data: JSON.stringify(run.trigger),
    actor: JSON.stringify(run.actor),
    context: JSON.stringify(run.context),
    steps: automation.steps,
    request_id: run.requestId ?? null,
    error: null,
    due_at: now,
    lease_until: 0,
    created_at: isoAt(now),
    started_at: null,
    finished_at: null,
    claims: 0,
    chain: JSON.stringify(chain),
  })
  tx.afterCommit(deps.onRunsQueued)
  tx.wake('jobs', JOB_RUNS) // and the runners of other processes on the database
  return id
}

/**
 * An accepted request to an incoming endpoint: one run per listening automation (see listeningToEndpoint), but none
 * for an automation in the request's chain (a run's own http_request step calling back, see delivery/chain.ts).
 */
export async function queueIncomingRuns(
  deps: Deps,
  tx: Tx,
  listeners: readonly { id: string; steps: string }[],
  endpoint: { id: string; name: string },
  request: { id: string; webhook: NonNullable<RunContext['webhook']>; chain?: readonly string[] },
  by?: { id: string; name: string },
): Promise<void> {
  const actor: RunActor = by ? { type: 'user', ...by } : { type: 'incoming_webhook', id: endpoint.id, name: endpoint.name }
  for (const a of listeners) {
    await queueRun(deps, tx, a, {
      trigger: { type: 'incoming_webhook', endpoint: endpoint.id, request: request.id },
      actor,
      context: { webhook: request.webhook },
      requestId: request.id,
      chain: request.chain,
    })
  }
}

/** The card an event is about: card events carry it as their record, other families (comments, ...) under `card`. */
function cardOf(event: EmittedEvent): string | undefined {
  const data = event.data as { id?: unknown; card?: { id?: unknown } }
  const id = event.name.startsWith('card.') ? data.id : data.card?.id
  return typeof id === 'string' ? id : undefined
}

/**
 * The event hook (deps.onEvents): runs of the board's event automations whose selectors take the event and whose card
 * filter, if any, the card matches as it is in this transaction. emitEvent leaves out events a run caused (no loops);
 * an event further down a chain (an agent's reply to a run's kickoff) starts none of the chain's automations. The automations of a board are read once for all the events given.
 */
export async function queueEventRuns(deps: Deps, tx: Tx, events: EmittedEvent[]): Promise<void> {
  const ofBoard = new Map<string, Awaited<ReturnType<typeof eventAutomationsOfBoard>>>()
  for (const event of events) {
    if (!event.boardId) continue
    const automations = ofBoard.get(event.boardId) ?? (await eventAutomationsOfBoard(tx.q, event.boardId))
    ofBoard.set(event.boardId, automations)
    for (const a of automations) {
      if (event.chain.includes(a.id)) continue
      if (!matchesSelectors(fromJsonColumn(StringList, a.events ?? '[]'), event.name)) continue
      if (a.filter) {
        const card = cardOf(event)
        if (!card) continue
        const hit = await applyFilter(tx.q.selectFrom('cards').select('cards.id').where('cards.id', '=', card), 'cards', a.filter).executeTakeFirst()
        if (!hit) continue
      }
      await queueRun(deps, tx, a, {
        trigger: { type: 'event', event: event.name, event_id: event.id },
        actor: { type: 'event', id: a.id, name: a.name },
        context: { event: { name: event.name, data: event.data } },
        chain: event.chain,
      })
    }
  }
}

/**
 * A schedule whose slot has come: one run for it, and the schedule moves on to the first slot after now, so slots
 * missed while the server was down make one run, not one each. False when another process took the slot.
 */
export async function queueScheduledRun(deps: Deps, tx: Tx, a: AutomationsTable): Promise<boolean> {
  const slot = a.next_run_at!
  const next = nextSlot(a.cron!, a.timezone ?? 'UTC', Math.max(slot, deps.clock.now()))
  if (!(await advanceSchedule(tx.q, a.id, slot, next))) return false
  await queueRun(deps, tx, a, {
    trigger: { type: 'schedule', scheduled_for: isoAt(slot) },
    actor: { type: 'schedule', id: a.id, name: a.name },
    context: {},
  })
  return true
}
