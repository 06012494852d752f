// Time entries: time a user spent on a task, recorded by hand or by a timer (an entry without an end while it runs).
import { z } from 'zod'
import { UserRef } from '../../http/schemas.js'

/** The longest entry recorded by hand or edited: 7 days. */
export const MAX_DURATION_SECONDS = 7 * 24 * 3600

export const TimeEntrySchema = z
  .strictObject({
    id: z.string(),
    card: z.string(),
    user: UserRef.meta({ description: 'Whose time it is.' }),
    started_at: z.string(),
    ended_at: z.string().nullable().meta({ description: 'Null while its timer runs.' }),
    duration_seconds: z.number().int().meta({ description: 'Whole seconds; of a running timer, the seconds until now.' }),
    note: z.string(),
    billable: z.boolean(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'TimeEntry' })
export type TimeEntryView = z.infer<typeof TimeEntrySchema>

export const TimeTotalsSchema = z
  .strictObject({
    items: z.array(
      z.strictObject({
        key: z.string().meta({ description: 'The card id, the user id, the day (`YYYY-MM-DD`, UTC) or the Monday of the ISO week (`YYYY-MM-DD`).' }),
        seconds: z.number().int(),
        billable_seconds: z.number().int(),
        cost: z.record(z.string(), z.number()).meta({
          description: 'Billable time priced at the rate in force on each day, by currency, in cents precision: `{ "EUR": 125.5 }`. Always `{}` for members.',
        }),
      }),
    ),
  })
  .meta({ id: 'TimeTotals' })
export type TimeTotals = z.infer<typeof TimeTotalsSchema>
export const GROUP_BY = ['card', 'user', 'day', 'week'] as const
/** The entry list's own query parameters (filter, sort and paging come on top). */
export const EntryListQuery = z.object({
  card: z.string().optional().meta({ description: 'Only the entries of this card.' }),
  group_by: z.enum(GROUP_BY).optional().meta({ description: 'Answer totals per card, user, day or ISO week instead of a page.' }),
})
export type EntryListParams = z.infer<typeof EntryListQuery>
export type GroupBy = (typeof GROUP_BY)[number]

const instant = z.iso
  .datetime({ offset: true })
  .refine((v) => {
    const year = new Date(v).getUTCFullYear()
    return year >= 1 && year <= 9999
  }, 'Must fall between the years 0001 and 9999 in UTC.')
  .meta({ description: 'ISO 8601 date-time, e.g. `2026-11-21T09:00:00Z`.' })
const duration = z.number().int('Whole seconds.').min(1, 'At least 1 second.').max(MAX_DURATION_SECONDS, `At most ${MAX_DURATION_SECONDS} seconds (7 days).`)
const note = z.string().max(10_000, 'At most 10,000 characters.').meta({ description: 'What the time is for, up to 10,000 characters.' })

/** Ends given by ended_at or duration_seconds, never both. */
const oneEnd = (b: { ended_at?: string; duration_seconds?: number }, ctx: z.RefinementCtx, required: boolean) => {
  if (b.ended_at !== undefined && b.duration_seconds !== undefined)
    ctx.addIssue({ code: 'custom', path: ['duration_seconds'], message: 'Give ended_at or duration_seconds, not both.' })
  else if (required && b.ended_at === undefined && b.duration_seconds === undefined)
    ctx.addIssue({ code: 'custom', path: ['ended_at'], message: 'Give ended_at or duration_seconds.' })
}

export const StartTimerBody = z
  .strictObject({ card: z.string().min(1).meta({ description: 'The card (record id) the time goes to.' }), note: note.optional() })
  .meta({ id: 'StartTimerBody' })
export type StartTimerInput = z.infer<typeof StartTimerBody>

export const CreateTimeEntryBody = z
  .strictObject({
    card: z.string().min(1),
    started_at: instant,
    ended_at: instant.optional().meta({ description: 'Exactly one of ended_at and duration_seconds.' }),
    duration_seconds: duration.optional(),
    note: note.optional(),
    billable: z.boolean().optional().meta({ description: 'Default true.' }),
    user: z.string().min(1).optional().meta({ description: "Whose time it is; default yours. Someone else's: owners and admins only." }),
  })
  .superRefine((b, ctx) => oneEnd(b, ctx, true))
  .meta({ id: 'CreateTimeEntryBody' })
export type CreateTimeEntryInput = z.infer<typeof CreateTimeEntryBody>

export const UpdateTimeEntryBody = z
  .strictObject({
    card: z.string().min(1).optional(),
    started_at: instant.optional(),
    ended_at: instant.optional(),
    duration_seconds: duration.optional(),
    note: note.optional(),
    billable: z.boolean().optional(),
  })
  .superRefine((b, ctx) => oneEnd(b, ctx, false))
  .meta({ id: 'UpdateTimeEntryBody' })
export type UpdateTimeEntryInput = z.infer<typeof UpdateTimeEntryBody>
