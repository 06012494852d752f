// Automations and runs in API shape; creators, last runs and run steps in one query each per page.
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { AutomationRunsTable, AutomationsTable } from '../../db/types.js'
import { creatorsOf } from '../users/present.js'
import { type AutomationRunView, type AutomationView, RunActor, type RunStepView, RunTrigger, StepList, type Trigger } from './schema.js'
import { lastRuns, stepsOfRuns } from './store.js'
import { fromJsonColumn, StringList } from '../../db/json.js'

export function triggerOf(row: AutomationsTable): Trigger {
  if (row.trigger_type === 'incoming_webhook') return { type: 'incoming_webhook', endpoint: row.endpoint_id! }
  if (row.trigger_type === 'event') return { type: 'event', events: fromJsonColumn(StringList, row.events!), ...(row.filter ? { filter: row.filter } : {}) }
  return { type: 'schedule', cron: row.cron!, timezone: row.timezone ?? 'UTC' }
}

export async function automationViews(q: Q, rows: readonly AutomationsTable[]): Promise<AutomationView[]> {
  const creator = await creatorsOf(q, rows)
  const last = await lastRuns(
    q,
    rows.map((r) => r.id),
  )
  return rows.map((r) => {
    const run = last.get(r.id)
    return {
      id: r.id,
      name: r.name,
      board: r.board_id,
      active: r.active === 1,
      paused_reason: r.paused_reason,
      trigger: triggerOf(r),
      steps: fromJsonColumn(StepList, r.steps),
      next_run_at: r.next_run_at === null ? null : isoAt(r.next_run_at),
      created_by: creator(r.created_by),
      created: r.created_at,
      updated: r.updated_at,
      last_run: run ? { id: run.id, status: run.status, at: run.finished_at ?? run.started_at ?? run.created_at } : null,
    }
  })
}

/**
 * Runs in API shape. `detailsShown` says of each run whether the viewer sees its steps' outputs and errors; where not,
 * both are null and the run says `details_hidden: true` (a receiver's answer may hold what a step sent).
 */
export async function runViews(q: Q, rows: readonly AutomationRunsTable[], detailsShown: (run: AutomationRunsTable) => boolean): Promise<AutomationRunView[]> {
  const steps = new Map<string, RunStepView[]>()
  for (const s of await stepsOfRuns(
    q,
    rows.map((r) => r.id),
  )) {
    const list = steps.get(s.run_id) ?? []
    list.push({
      index: s.idx,
      type: s.type as RunStepView['type'],
      status: s.status,
      output: s.output === null ? null : JSON.parse(s.output),
      error: s.error,
      started_at: s.started_at,
      finished_at: s.finished_at,
    })
    steps.set(s.run_id, list)
  }
  return rows.map((r) => {
    const shown = detailsShown(r)
    return {
      id: r.id,
      automation: r.automation_id,
      status: r.status,
      trigger: fromJsonColumn(RunTrigger, r.trigger_data),
      actor: fromJsonColumn(RunActor, r.actor),
      steps: shown ? (steps.get(r.id) ?? []) : (steps.get(r.id) ?? []).map((step) => ({ ...step, output: null, error: null })),
      ...(shown ? {} : { details_hidden: true as const }),
      error: r.error,
      created: r.created_at,
      started_at: r.started_at,
      finished_at: r.finished_at,
    }
  })
}
