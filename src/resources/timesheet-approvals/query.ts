// Timesheet approvals: filter fields and sort.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { TIMESHEET_STATUSES } from './schema.js'

export const TIMESHEET_FILTER: FilterResource = {
  table: 'timesheet_approvals',
  fields: {
    id: field.id('id'),
    user: field.id('user_id', 'users'),
    status: field.oneOf('status', TIMESHEET_STATUSES),
    period_start: field.date('period_start', true),
    period_end: field.date('period_end', true),
    reviewed_by: field.id('reviewed_by', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const TIMESHEET_LIST: ListSpec = {
  resource: 'timesheet_approvals',
  table: 'timesheet_approvals',
  defaultSort: '-period_start',
  expand: [],
  sort: {
    period_start: 'timesheet_approvals.period_start',
    period_end: 'timesheet_approvals.period_end',
    created: 'timesheet_approvals.created_at',
    updated: 'timesheet_approvals.updated_at',
  },
}
