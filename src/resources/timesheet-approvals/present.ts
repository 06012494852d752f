// Timesheet approvals in API shape, with the names of their users and reviewers in one query for a page.
import type { Q } from '../../db/database.js'
import type { TimesheetApprovalsTable } from '../../db/types.js'
import { userRefOf } from '../users/present.js'
import { getUsers } from '../users/store.js'
import type { TimesheetApprovalView } from './schema.js'

export async function approvalViews(q: Q, rows: readonly TimesheetApprovalsTable[]): Promise<TimesheetApprovalView[]> {
  const users = new Map(
    (
      await getUsers(
        q,
        rows.flatMap((r) => [r.user_id, ...(r.reviewed_by ? [r.reviewed_by] : [])]),
      )
    ).map((u) => [u.id, u]),
  )
  return rows.map((r) => ({
    id: r.id,
    user: userRefOf(users, r.user_id),
    period_start: r.period_start,
    period_end: r.period_end,
    status: r.status,
    note: r.note,
    comment: r.comment,
    reviewed_by: r.reviewed_by ? userRefOf(users, r.reviewed_by) : null,
    reviewed_at: r.reviewed_at,
    created: r.created_at,
    updated: r.updated_at,
  }))
}
