// Automations: owners, admins and members of the automation's board manage them with a write token; read tokens see
// them. Using a signing secret in a step (which sends its value, or a signature made with it, to the step's URL) is for
// owners and admins only, so a member cannot point a workspace secret at a server of their own.
import { seesRunDetails } from '../../access/records.js'
import { type Actor, isAdmin } from '../../access/roles.js'
import { boardInSight, visibleBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { AutomationRunsTable, AutomationsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { type ErrorDetail, forbidden, notFound, unprocessable } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { audit } from '../audit/record.js'
import { automationViews, runViews, triggerOf } from './present.js'
import { AUTOMATION_LIST, RUN_LIST } from './query.js'
import { nextSlot, secretsOf, stepProblems, triggerProblems, urlChecks } from './rules.js'
import {
  type AutomationRunView,
  type AutomationView,
  type CreateAutomationInput,
  type Step,
  StepList,
  type Trigger,
  type UpdateAutomationInput,
} from './schema.js'
import {
  deleteAutomationRow,
  getAutomation,
  getRun,
  insertAutomation,
  runsQuery,
  setAutomationSecrets,
  updateAutomationRow,
  visibleAutomationsQuery,
} from './store.js'
import { fromJsonColumn } from '../../db/json.js'

const invalid = (details: ErrorDetail[]) => unprocessable('The automation is not valid.', details)

/** The automation if the actor sees its board (with `inTrashToo`, also a board in the trash); 404 otherwise. */
async function visibleAutomation(q: Q, actor: Actor, id: string, opts: { inTrashToo?: boolean } = {}): Promise<AutomationsTable> {
  const row = await getAutomation(q, id)
  if (!row) throw notFound('automation')
  await (opts.inTrashToo ? boardInSight : visibleBoard)(q, actor, row.board_id, 'automation')
  return row
}

const view = async (q: Q, row: AutomationsTable): Promise<AutomationView> => (await automationViews(q, [row]))[0]

/** The trigger's columns; a schedule gets its next slot (none while inactive). */
function triggerColumns(trigger: Trigger, active: boolean, now: number) {
  return {
    trigger_type: trigger.type,
    endpoint_id: trigger.type === 'incoming_webhook' ? trigger.endpoint : null,
    events: trigger.type === 'event' ? JSON.stringify(trigger.events) : null,
    filter: trigger.type === 'event' ? (trigger.filter ?? null) : null,
    cron: trigger.type === 'schedule' ? trigger.cron : null,
    timezone: trigger.type === 'schedule' ? trigger.timezone : null,
    next_run_at: trigger.type === 'schedule' && active ? nextSlot(trigger.cron, trigger.timezone, now) : null,
  }
}

/** Checks a trigger and steps about to be saved on a board; throws 422 (or 403 for a member naming a secret). */
async function check(deps: Deps, q: Q, actor: Actor, boardId: string, trigger: Trigger, steps: readonly Step[], urlDetails: ErrorDetail[]): Promise<void> {
  const details = [...(await triggerProblems(q, trigger, boardId, deps.clock.now())), ...(await stepProblems(q, steps, trigger, boardId)), ...urlDetails]
  if (details.length) throw invalid(details)
  if (secretsOf(steps).length > 0 && !isAdmin(actor)) throw forbidden('Only workspace owners and admins may use signing secrets in automation steps.')
}

export function listAutomations(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleAutomationsQuery(q, actor.user, params.board),
    AUTOMATION_LIST,
    params,
    (rows: AutomationsTable[]) => automationViews(q, rows),
    {
      anchored: Boolean(params.board),
    },
  )
}

export async function getAutomationFor(deps: Deps, actor: Actor, id: string): Promise<AutomationView> {
  const { q } = deps.db
  return view(q, await visibleAutomation(q, actor, id))
}

export async function createAutomation(deps: Deps, actor: Actor, input: CreateAutomationInput): Promise<AutomationView> {
  const urlDetails = await urlChecks(input.steps, deps.config.allowPrivateTargets)
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const board = await visibleBoard(q, actor, input.board)
    await check(deps, q, actor, board.id, input.trigger, input.steps, urlDetails)
    const now = deps.clock.now()
    const at = isoAt(now)
    const row: AutomationsTable = {
      id: newId(),
      board_id: board.id,
      name: input.name,
      active: input.active ? 1 : 0,
      ...triggerColumns(input.trigger, input.active, now),
      steps: JSON.stringify(input.steps),
      created_by: actor.user.id,
      created_at: at,
      updated_at: at,
      paused_reason: null,
      run_window_at: 0,
      run_window_count: 0,
    }
    await insertAutomation(q, row)
    await setAutomationSecrets(q, row.id, secretsOf(input.steps))
    // The steps' types, never their contents (headers and bodies may hold credentials).
    await audit(deps, tx, actor, 'automation.created', row, {
      board: row.board_id,
      details: { trigger: input.trigger.type, steps: input.steps.map((step) => step.type), active: input.active, signing_secrets: secretsOf(input.steps) },
    })
    return view(q, row)
  })
}

export async function updateAutomation(deps: Deps, actor: Actor, id: string, input: UpdateAutomationInput): Promise<AutomationView> {
  const urlDetails = input.steps ? await urlChecks(input.steps, deps.config.allowPrivateTargets) : []
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const current = await visibleAutomation(q, actor, id)
    const trigger = input.trigger ?? triggerOf(current)
    const steps = input.steps ?? fromJsonColumn(StepList, current.steps)
    const active = input.active ?? current.active === 1
    // Saved steps are checked again only when they change; a trigger change rechecks placeholders against the new one.
    if (input.trigger || input.steps) await check(deps, q, actor, current.board_id, trigger, steps, urlDetails)
    const now = deps.clock.now()
    const reschedule = input.trigger !== undefined || (input.active !== undefined && active !== (current.active === 1))
    const set: Partial<AutomationsTable> = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      active: active ? 1 : 0,
      // Turned on or off by a person: taskd's reason for a pause no longer holds, and the minute's count starts again.
      ...(input.active !== undefined ? { paused_reason: null, run_window_count: 0 } : {}),
      ...(reschedule ? triggerColumns(trigger, active, now) : {}),
      ...(input.steps ? { steps: JSON.stringify(input.steps) } : {}),
      updated_at: isoAt(now),
    }
    if (!(await updateAutomationRow(q, id, set))) throw notFound('automation')
    if (input.steps) await setAutomationSecrets(q, id, secretsOf(input.steps))
    const saved = (await getAutomation(q, id))!
    const changed = Object.keys(input).filter((k) => input[k as keyof UpdateAutomationInput] !== undefined)
    await audit(deps, tx, actor, 'automation.updated', saved, {
      board: saved.board_id,
      details: { changed, active, ...(current.paused_reason && input.active !== undefined ? { was_paused: current.paused_reason } : {}) },
    })
    return view(q, saved)
  })
}

/**
 * Deletes the automation with its runs (a run in progress stops before its next step). Also on a board in the trash,
 * so that an endpoint or signing secret it holds can be deleted.
 */
export function deleteAutomation(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const row = await visibleAutomation(tx.q, actor, id, { inTrashToo: true })
    await deleteAutomationRow(tx.q, id)
    await audit(deps, tx, actor, 'automation.deleted', row, { board: row.board_id, details: { trigger: row.trigger_type } })
  })
}

export async function listRuns(deps: Deps, actor: Actor, id: string, params: ListParams) {
  const { q } = deps.db
  await visibleAutomation(q, actor, id)
  return listPage(deps.db, runsQuery(q, id), RUN_LIST, params, (rows: AutomationRunsTable[]) => runViews(q, rows, detailsShownTo(actor)), { anchored: true })
}

export async function getRunFor(deps: Deps, actor: Actor, runId: string): Promise<AutomationRunView> {
  const { q } = deps.db
  const run = await getRun(q, runId)
  if (!run) throw notFound('run')
  await visibleAutomation(q, actor, run.automation_id).catch(() => {
    throw notFound('run')
  })
  return (await runViews(q, [run], detailsShownTo(actor)))[0]
}

/** Whether the actor sees a run's step outputs and errors, by the steps it ran (a later edit of the automation does not change it). */
const detailsShownTo = (actor: Actor) => (run: AutomationRunsTable) => seesRunDetails(actor, secretsOf(fromJsonColumn(StepList, run.steps)).length > 0)
