// Timesheet approvals. Anyone submits a period of their own time; owners and admins see every submission and approve
// or reject it. The time entries of a user that have time on a day of one of their approved periods are locked.
import { sightLimitedTo } from '../../access/records.js'
import { type Actor, creatorId, isAdmin } from '../../access/roles.js'
import { seesUsersRecord } from '../../access/visibility.js'
import { dayOf, isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { TimesheetApprovalsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, forbidden, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { runningEntryOf } from '../time-entries/published.js'
import { approvalViews } from './present.js'
import { TIMESHEET_LIST } from './query.js'
import type { SubmitTimesheetInput, TimesheetApprovalView } from './schema.js'
import {
  approvedPeriodWithin,
  deleteApprovalRow,
  getApproval,
  insertApproval,
  lockTimesheet,
  overlappingApproval,
  updateApprovalRow,
  approvalsQuery,
} from './store.js'

/** An approval the caller sees (their own; owners and admins any); 404 otherwise. */
async function visibleApproval(q: Q, actor: Actor, id: string): Promise<TimesheetApprovalsTable> {
  const row = await getApproval(q, id)
  if (!row || !seesUsersRecord(actor.user, row.user_id)) throw notFound('timesheet approval')
  return row
}

const viewOf = async (q: Q, id: string): Promise<TimesheetApprovalView> => (await approvalViews(q, [(await getApproval(q, id))!]))[0]

/**
 * Before a change of a user's time between `startedAt` and `endedAt` (ISO date-times; the end not included, the same as
 * the start for a moment): locks their timesheet for the rest of the transaction and refuses (409) when an approved
 * period holds any day of that time. An entry that starts the day before a period and runs into it is refused too.
 */
export async function refuseLockedTime(q: Q, userId: string, startedAt: string, endedAt: string = startedAt): Promise<void> {
  await lockTimesheet(q, userId)
  const first = dayOf(startedAt)
  const endMs = Date.parse(endedAt)
  const last = endMs > Date.parse(startedAt) ? dayOf(isoAt(endMs - 1)) : first
  const period = await approvedPeriodWithin(q, userId, first, last)
  if (period)
    throw conflict(
      `${first === last ? first : `Time from ${startedAt} to ${endedAt}`} is in an approved timesheet (${period.period_start} to ${period.period_end}): its time entries are locked. An owner or admin can withdraw the approval.`,
    )
}

export function listApprovals(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, approvalsQuery(q, sightLimitedTo(actor.user)), TIMESHEET_LIST, params, (rows: TimesheetApprovalsTable[]) => approvalViews(q, rows))
}

export const getApprovalFor = async (deps: Deps, actor: Actor, id: string) => (await approvalViews(deps.db.q, [await visibleApproval(deps.db.q, actor, id)]))[0]

/** Submits a period of the caller's own time; 409 when it shares a day with one of their submitted or approved periods. */
export const submitTimesheet = (deps: Deps, actor: Actor, input: SubmitTimesheetInput): Promise<TimesheetApprovalView> =>
  deps.db.tx(async ({ q }) => {
    const userId = actor.user.id
    await lockTimesheet(q, userId)
    const clash = await overlappingApproval(q, userId, input.period_start, input.period_end)
    if (clash) throw conflict(`The period overlaps your ${clash.status} timesheet of ${clash.period_start} to ${clash.period_end}.`)
    const at = isoAt(deps.clock.now())
    const id = newId()
    await insertApproval(q, {
      id,
      user_id: userId,
      period_start: input.period_start,
      period_end: input.period_end,
      status: 'submitted',
      note: input.note ?? '',
      comment: null,
      reviewed_by: null,
      reviewed_at: null,
      created_at: at,
      updated_at: at,
    })
    return viewOf(q, id)
  })

/**
 * Approves (its entries lock) or rejects a submitted timesheet: owners and admins only (403), and only while it is
 * submitted (409). An approval waits until no timer of the user runs in the period (409), so a locked period is final.
 */
export const reviewTimesheet = (deps: Deps, actor: Actor, id: string, status: 'approved' | 'rejected', comment?: string): Promise<TimesheetApprovalView> =>
  deps.db.tx(async ({ q }) => {
    const row = await visibleApproval(q, actor, id)
    if (!isAdmin(actor)) throw forbidden('Only owners and admins review timesheets.')
    await lockTimesheet(q, row.user_id)
    const current = await getApproval(q, id) // as it is now that its user's timesheet is locked
    if (!current) throw notFound('timesheet approval')
    if (current.status !== 'submitted') throw conflict(`The timesheet is ${current.status} already; only a submitted one can be reviewed.`)
    // A timer that started before the period's end may run into it (one started the day before has), so it is stopped first.
    const running = status === 'approved' ? await runningEntryOf(q, row.user_id) : undefined
    if (running && dayOf(running.started_at) <= row.period_end)
      throw conflict('A timer of the user started before the end of this period and still runs; it must stop before the period is approved.')
    const at = isoAt(deps.clock.now())
    await updateApprovalRow(q, id, { status, comment: comment ?? null, reviewed_by: creatorId(actor), reviewed_at: at, updated_at: at })
    return viewOf(q, id)
  })

/**
 * The submitter withdraws their timesheet while it is not approved (403 once it is); owners and admins delete any,
 * an approved one included, which unlocks its time entries.
 */
export const deleteApproval = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    const row = await visibleApproval(q, actor, id)
    if (!isAdmin(actor) && row.status === 'approved') throw forbidden('An approved timesheet is withdrawn by an owner or admin only.')
    await deleteApprovalRow(q, id)
  })
