// /v1/timesheet-approvals: periods of time submitted for approval, and their review.
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { TIMESHEET_LIST } from './query.js'
import { ApproveTimesheetBody, RejectTimesheetBody, SubmitTimesheetBody, TimesheetApprovalSchema } from './schema.js'
import { deleteApproval, getApprovalFor, listApprovals, reviewTimesheet, submitTimesheet } from './service.js'

const Approval = envelope('timesheet_approval', TimesheetApprovalSchema)

export const timesheetApprovalRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/timesheet-approvals',
    operationId: 'listTimesheetApprovals',
    tag: 'Timesheet approvals',
    access: 'read',
    summary: 'List timesheet approvals: your own; owners and admins see everyone’s. Newest period first',
    query: listQuery(TIMESHEET_LIST),
    responses: { 200: { description: 'A page of timesheet approvals', schema: pageSchema(TimesheetApprovalSchema, 'TimesheetApprovalPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listApprovals(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/timesheet-approvals',
    operationId: 'submitTimesheet',
    tag: 'Timesheet approvals',
    access: 'write',
    summary: 'Submit a period of your own time for approval (status `submitted`)',
    description:
      'The period is inclusive and at most 366 days. 409 when it shares a day with one of your submitted or approved periods (a rejected one can be submitted again). Once approved, your time on a day of the period is locked: creating, editing or deleting an entry with any time on such a day (one that starts the day before included), or starting or stopping a timer that would put time there, answers 409.',
    body: SubmitTimesheetBody,
    errors: [409],
    responses: { 201: { description: 'The submitted timesheet', schema: Approval } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { timesheet_approval: await submitTimesheet(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/timesheet-approvals/{id}',
    operationId: 'getTimesheetApproval',
    tag: 'Timesheet approvals',
    access: 'read',
    summary: 'Get a timesheet approval (your own; owners and admins any)',
    params: idParam,
    responses: { 200: { description: 'The timesheet approval', schema: Approval } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { timesheet_approval: await getApprovalFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/timesheet-approvals/{id}/approve',
    operationId: 'approveTimesheet',
    tag: 'Timesheet approvals',
    access: 'write',
    summary: 'Approve a submitted timesheet (owners and admins); its time entries lock',
    description:
      '409 unless it is `submitted`, and while a timer of its user that started before the end of the period still runs (it would run into the period). Owners and admins may approve their own.',
    params: idParam,
    body: ApproveTimesheetBody,
    errors: [409],
    responses: { 200: { description: 'The approved timesheet', schema: Approval } },
    handler: async ({ deps, actor, params, body }) => ({
      status: 200,
      body: { timesheet_approval: await reviewTimesheet(deps, actor, params.id, 'approved', body.comment) },
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/timesheet-approvals/{id}/reject',
    operationId: 'rejectTimesheet',
    tag: 'Timesheet approvals',
    access: 'write',
    summary: 'Reject a submitted timesheet with a comment (owners and admins); 409 unless it is `submitted`',
    params: idParam,
    body: RejectTimesheetBody,
    errors: [409],
    responses: { 200: { description: 'The rejected timesheet', schema: Approval } },
    handler: async ({ deps, actor, params, body }) => ({
      status: 200,
      body: { timesheet_approval: await reviewTimesheet(deps, actor, params.id, 'rejected', body.comment) },
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/timesheet-approvals/{id}',
    operationId: 'deleteTimesheetApproval',
    tag: 'Timesheet approvals',
    access: 'write',
    summary: 'Withdraw a timesheet',
    description:
      'Its submitter withdraws it while it is submitted or rejected (403 once approved); owners and admins delete any, an approved one included, which unlocks its time entries.',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteApproval(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
