// /v1/time-entries: time spent on tasks, the caller's timer, and totals (`group_by`).
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam, orNull } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { CardSchema } from '../cards/schema.js'
import { UserSchema } from '../users/schema.js'
import { TIME_ENTRY_LIST } from './query.js'
import { CreateTimeEntryBody, EntryListQuery, StartTimerBody, TimeEntrySchema, TimeTotalsSchema, UpdateTimeEntryBody } from './schema.js'
import { createEntry, deleteEntry, getEntryFor, getTimer, listEntries, startTimer, stopTimer, updateEntry } from './service.js'

const Entry = envelope('time_entry', TimeEntrySchema)
const Expanded = TimeEntrySchema.extend({ expand: z.strictObject({ card: CardSchema.optional(), user: UserSchema.optional() }).optional() })
const LOCKED =
  'Time on a day of an approved timesheet of its user is locked (409): an entry is refused when any part of it falls on such a day, whichever day it starts on.'

// The timer's fixed paths come before /v1/time-entries/{id}, which would otherwise take "timer" for an id.
export const timeEntryRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/time-entries/timer',
    operationId: 'getTimer',
    tag: 'Time entries',
    access: 'read',
    summary: 'Your running timer, or null',
    responses: {
      200: { description: 'The running entry, or null', schema: z.strictObject({ time_entry: orNull(TimeEntrySchema) }).meta({ id: 'TimerAnswer' }) },
    },
    handler: async ({ deps, actor }) => ({ status: 200, body: { time_entry: await getTimer(deps, actor) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/time-entries/timer/start',
    operationId: 'startTimer',
    tag: 'Time entries',
    access: 'write',
    summary: 'Start your timer on a card (billable); a timer of yours that runs stops first',
    description: `You have one running timer at most: one that runs stops (emitting its timer.stopped) in the same transaction, then timer.started. 409 when today (UTC) is in an approved timesheet of yours.`,
    body: StartTimerBody,
    errors: [404, 409],
    responses: { 201: { description: 'The running entry', schema: Entry } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { time_entry: await startTimer(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/time-entries/timer/stop',
    operationId: 'stopTimer',
    tag: 'Time entries',
    access: 'write',
    summary: 'Stop your running timer (timer.stopped); 404 when none runs',
    description: `409 when the timer ran into a day of an approved timesheet of yours (approved while it ran): ${LOCKED} An owner or admin can withdraw the approval.`,
    errors: [404, 409],
    responses: { 200: { description: 'The finished entry', schema: Entry } },
    handler: async ({ deps, actor }) => ({ status: 200, body: { time_entry: await stopTimer(deps, actor) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/time-entries',
    operationId: 'listTimeEntries',
    tag: 'Time entries',
    access: 'read',
    summary: 'List time entries of the visible boards (newest start first), or their totals with `group_by`',
    description: [
      'Without `group_by`: a page of entries on cards of the boards you see.',
      'With `group_by` (`card`, `user`, `day` or `week`): `{ items: [{ key, seconds, billable_seconds, cost }] }` over every finished entry the filter selects (not paged: `page`, `per_page`, `sort` and `expand` do not apply; running timers are left out).',
      '`key` is the card id, the user id, the UTC day of the start (`YYYY-MM-DD`) or the Monday of its ISO week (`YYYY-MM-DD`). Days and weeks come newest first, cards and users by most time.',
      '`cost` prices the billable seconds at the user\'s hourly rate in force on the entry\'s UTC day (see /v1/user-billing-rates), by currency and rounded to cents: `{ "EUR": 125.5 }`, `{}` when no rate applies. Costs are shown to owners and admins only: for anyone else `cost` is always `{}`.',
    ].join('\n\n'),
    query: listQuery(TIME_ENTRY_LIST).extend(EntryListQuery.shape),
    responses: {
      200: {
        description: 'A page of time entries, or with `group_by` the totals',
        schema: z.union([pageSchema(Expanded, 'TimeEntryPage'), TimeTotalsSchema]),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listEntries(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/time-entries',
    operationId: 'createTimeEntry',
    tag: 'Time entries',
    access: 'write',
    summary: 'Record time on a card by hand',
    description: `Give \`started_at\` and exactly one of \`ended_at\` and \`duration_seconds\`: at least 1 second, at most 7 days (604800 seconds). \`billable\` defaults to true. Owners and admins may record time for another \`user\` who sees the card's board; anyone else records their own (403). ${LOCKED}`,
    body: CreateTimeEntryBody,
    errors: [404, 409],
    responses: { 201: { description: 'The time entry', schema: Entry } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { time_entry: await createEntry(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/time-entries/{id}',
    operationId: 'getTimeEntry',
    tag: 'Time entries',
    access: 'read',
    summary: 'Get a time entry',
    params: idParam,
    query: z.object({ expand: z.string().max(500).optional().meta({ description: 'card, user' }) }),
    responses: { 200: { description: 'The time entry', schema: envelope('time_entry', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { time_entry: await getEntryFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/time-entries/{id}',
    operationId: 'updateTimeEntry',
    tag: 'Time entries',
    access: 'write',
    summary: 'Edit a time entry (yours; owners and admins any)',
    description: `\`started_at\` alone moves the entry (its duration stays); \`ended_at\` or \`duration_seconds\` (one of them) sets its end, within the same limits as on create. A running timer takes a new start (not in the future) but ends only through POST /v1/time-entries/timer/stop. ${LOCKED} This holds for the entry as it is and as it would become.`,
    params: idParam,
    body: UpdateTimeEntryBody,
    errors: [403, 409],
    responses: { 200: { description: 'The time entry', schema: Entry } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { time_entry: await updateEntry(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/time-entries/{id}',
    operationId: 'deleteTimeEntry',
    tag: 'Time entries',
    access: 'write',
    summary: 'Delete a time entry (yours; owners and admins any); a running one is discarded',
    description: LOCKED,
    params: idParam,
    errors: [403, 409],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteEntry(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
