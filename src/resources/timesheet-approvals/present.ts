// Timesheet approvals in API shape, with the names of their users and reviewers in one query for a page.
import type { Q } from '../../db/database.js'
import type { TimesheetApprovalsTable } from '../../db/types.js'
import { userRefsOf } from '../users/present.js'
import type { TimesheetApprovalView } from './schema.js'

export async function approvalViews(q: Q, rows: readonly TimesheetApprovalsTable[]): Promise<TimesheetApprovalView[]> {
  const ref = await userRefsOf(
    q,
    rows.flatMap((r) => [r.user_id, r.reviewed_by]),
  )
  return rows.map((r) => ({
    id: r.id,
    user: ref(r.user_id),
    period_start: r.period_start,
    period_end: r.period_end,
    status: r.status,
    note: r.note,
    comment: r.comment,
    reviewed_by: ref(r.reviewed_by),
    reviewed_at: r.reviewed_at,
    created: r.created_at,
    updated: r.updated_at,
  }))
}
