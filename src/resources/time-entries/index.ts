// The time entries family: /v1/time-entries (entries, the timer, totals).
import type { ResourceModule } from '../module.js'
import { TIMER_EVENTS } from './events.js'
import { TIME_ENTRY_FILTER } from './query.js'
import { timeEntryRoutes } from './routes.js'
import { TIMER_TOOLS } from './mcp.js'

export const timeEntries: ResourceModule = {
  name: 'time-entries',
  routes: timeEntryRoutes,
  filters: { time_entries: TIME_ENTRY_FILTER },
  events: TIMER_EVENTS,
  mcpTools: TIMER_TOOLS,
  exports: [{ table: 'time_entries' }],
}
