import type { ResourceModule } from '../module.js'
import { AGENT_EVENTS } from './events.js'
import { AGENT_ACTIVITY_FILTER, AGENT_RUN_FILTER } from './query.js'
import { agentRunRoutes } from './routes.js'

export const agentRuns: ResourceModule = {
  name: 'agent-runs',
  routes: agentRunRoutes,
  filters: { agent_runs: AGENT_RUN_FILTER, agent_run_activity: AGENT_ACTIVITY_FILTER },
  events: AGENT_EVENTS,
  notExported: {
    agent_runs: 'Agent setup and runs act on the outside world (wake URLs, desktop apps); a restored workspace sets its agents up again.',
    agent_run_activity: 'Agent setup and runs act on the outside world (wake URLs, desktop apps); a restored workspace sets its agents up again.',
  },
}
