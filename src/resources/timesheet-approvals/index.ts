// The timesheet approvals family: /v1/timesheet-approvals.
import type { ResourceModule } from '../module.js'
import { TIMESHEET_FILTER } from './query.js'
import { timesheetApprovalRoutes } from './routes.js'

export const timesheetApprovals: ResourceModule = {
  name: 'timesheet-approvals',
  routes: timesheetApprovalRoutes,
  filters: { timesheet_approvals: TIMESHEET_FILTER },
  exports: [{ table: 'timesheet_approvals' }],
}
