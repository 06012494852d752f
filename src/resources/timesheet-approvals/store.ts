// Timesheet approval queries, and the two questions time entries ask of them: is a day locked, is a timer running.
import type { Q } from '../../db/database.js'
import { lockRows } from '../../db/dialect.js'
import type { TimesheetApprovalsTable } from '../../db/types.js'

export const getApproval = (q: Q, id: string) => q.selectFrom('timesheet_approvals').selectAll().where('id', '=', id).executeTakeFirst()
export const insertApproval = (q: Q, row: TimesheetApprovalsTable) => q.insertInto('timesheet_approvals').values(row).execute()
export const updateApprovalRow = (q: Q, id: string, set: Partial<TimesheetApprovalsTable>) =>
  q.updateTable('timesheet_approvals').set(set).where('id', '=', id).execute()
export const deleteApprovalRow = (q: Q, id: string) => q.deleteFrom('timesheet_approvals').where('id', '=', id).execute()

/**
 * Locks a user's timesheet until the transaction ends (PostgreSQL: their users row FOR UPDATE), so a submission, an
 * approval and a change of their time entries take turns and each sees what the other did.
 */
export const lockTimesheet = (q: Q, userId: string) => lockRows(q, q.selectFrom('users').select('id').where('id', '=', userId))

/** A submitted or approved period of the user that shares a day with [start, end]. */
export const overlappingApproval = (q: Q, userId: string, start: string, end: string) =>
  q
    .selectFrom('timesheet_approvals')
    .selectAll()
    .where('user_id', '=', userId)
    .where('status', 'in', ['submitted', 'approved'])
    .where('period_start', '<=', end)
    .where('period_end', '>=', start)
    .executeTakeFirst()

/** The user's approved period that shares a day with [first, last] (`YYYY-MM-DD`), if any: their time on those days is locked. */
export const approvedPeriodWithin = (q: Q, userId: string, first: string, last: string) =>
  q
    .selectFrom('timesheet_approvals')
    .selectAll()
    .where('user_id', '=', userId)
    .where('status', '=', 'approved')
    .where('period_start', '<=', last)
    .where('period_end', '>=', first)
    .executeTakeFirst()

/** Base query of the approval list: one user's approvals, or everyone's (`userId` undefined). */
export function approvalsQuery(q: Q, userId: string | undefined) {
  const query = q.selectFrom('timesheet_approvals')
  return userId === undefined ? query : query.where('timesheet_approvals.user_id', '=', userId)
}
