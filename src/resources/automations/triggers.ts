// Where runs come from. Each is queued in the transaction of what starts it (an accepted incoming request, an event,
// a schedule slot), so a run is never lost and never exists without its cause; the runner starts after the commit.
import { isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import type { AutomationsTable } from '../../db/types.js'
import type { Deps, EmittedEvent } from '../../deps.js'
import { matchesSelectors } from '../../events/names.js'
import { applyFilter } from '../../filter/index.js'
import { newId } from '../../ids.js'
import type { RunContext } from './placeholders.js'
import type { RunActor, RunTrigger } from './schema.js'
import { advanceSchedule, eventAutomationsOfBoard, insertRun } from './store.js'
import { nextSlot } from './rules.js'
import { fromJsonColumn, StringList } from '../../db/json.js'

async function queueRun(
  deps: Deps,
  tx: Tx,
  automation: { id: string; steps: string },
  run: { trigger: RunTrigger; actor: RunActor; context: RunContext; requestId?: string },
): Promise<string> {
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
  })
  tx.afterCommit(deps.onRunsQueued)
  return id
}

/** An accepted request to an incoming endpoint: one run per listening automation (see listeningToEndpoint). */
export async function queueIncomingRuns(
  deps: Deps,
  tx: Tx,
  listeners: readonly { id: string; steps: string }[],
  endpoint: { id: string; name: string },
  request: { id: string; webhook: NonNullable<RunContext['webhook']> },
  by?: { id: string; name: string },
): Promise<void> {
  const actor: RunActor = by ? { type: 'user', ...by } : { type: 'incoming_webhook', id: endpoint.id, name: endpoint.name }
  for (const a of listeners) {
    await queueRun(deps, tx, a, {
      trigger: { type: 'incoming_webhook', endpoint: endpoint.id, request: request.id },
      actor,
      context: { webhook: request.webhook },
      requestId: request.id,
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
 * filter, if any, the card matches as it is in this transaction. emitEvent leaves out events a run caused (no loops).
 * The automations of a board are read once for all the events given.
 */
export async function queueEventRuns(deps: Deps, tx: Tx, events: EmittedEvent[]): Promise<void> {
  const ofBoard = new Map<string, Awaited<ReturnType<typeof eventAutomationsOfBoard>>>()
  for (const event of events) {
    if (!event.boardId) continue
    const automations = ofBoard.get(event.boardId) ?? (await eventAutomationsOfBoard(tx.q, event.boardId))
    ofBoard.set(event.boardId, automations)
    for (const a of automations) {
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
