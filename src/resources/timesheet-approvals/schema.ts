// Timesheet approvals: a user submits a period of their time; an owner or admin approves it (its entries lock) or rejects it.
import { z } from 'zod'
import { DAY_MS } from '../../clock.js'
import { agrees } from '../../db/agrees.js'
import type { TimesheetApprovalsTable } from '../../db/types.js'
import { orNull, UserRef } from '../../http/schemas.js'

export const TIMESHEET_STATUSES = ['submitted', 'approved', 'rejected'] as const
agrees<(typeof TIMESHEET_STATUSES)[number], TimesheetApprovalsTable['status']>() // the CHECK of schema.sql, or the build fails
export const MAX_PERIOD_DAYS = 366

export const TimesheetApprovalSchema = z
  .strictObject({
    id: z.string(),
    user: UserRef.meta({ description: 'Whose time it is: who submitted it.' }),
    period_start: z.string().meta({ description: 'First day, `YYYY-MM-DD`.' }),
    period_end: z.string().meta({ description: 'Last day, `YYYY-MM-DD` (inclusive).' }),
    status: z.enum(TIMESHEET_STATUSES),
    note: z.string().meta({ description: "The submitter's note." }),
    comment: z.string().nullable().meta({ description: "The reviewer's comment; null until reviewed (or approved without one)." }),
    reviewed_by: orNull(UserRef),
    reviewed_at: z.string().nullable(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'TimesheetApproval' })
export type TimesheetApprovalView = z.infer<typeof TimesheetApprovalSchema>

/** Days from `start` to `end`, both counted. */
export const daysIn = (start: string, end: string): number => (Date.parse(end) - Date.parse(start)) / DAY_MS + 1

const text = z.string().max(10_000, 'At most 10,000 characters.')
export const SubmitTimesheetBody = z
  .strictObject({
    period_start: z.iso.date().meta({ description: 'First day, `YYYY-MM-DD`.' }),
    period_end: z.iso.date().meta({ description: `Last day, \`YYYY-MM-DD\` (inclusive); the period is at most ${MAX_PERIOD_DAYS} days.` }),
    note: text.optional(),
  })
  .superRefine((b, ctx) => {
    const days = daysIn(b.period_start, b.period_end)
    if (days < 1) ctx.addIssue({ code: 'custom', path: ['period_end'], message: 'Must not be before period_start.' })
    else if (days > MAX_PERIOD_DAYS) ctx.addIssue({ code: 'custom', path: ['period_end'], message: `A period is at most ${MAX_PERIOD_DAYS} days.` })
  })
  .meta({ id: 'SubmitTimesheetBody' })
export type SubmitTimesheetInput = z.infer<typeof SubmitTimesheetBody>

export const ApproveTimesheetBody = z.strictObject({ comment: text.optional() }).meta({ id: 'ApproveTimesheetBody' })
export const RejectTimesheetBody = z
  .strictObject({
    comment: text.refine((s) => s.trim().length > 0, 'Must not be empty.').meta({ description: 'Why it is rejected (required).' }),
  })
  .meta({ id: 'RejectTimesheetBody' })
