import type { ResourceModule } from '../module.js'
import { AGENT_EVENTS } from './events.js'
import { AGENT_ACTIVITY_FILTER, AGENT_RUN_FILTER } from './query.js'
import { agentRunRoutes } from './routes.js'

export const agentRuns: ResourceModule = {
  name: 'agent-runs',
  routes: agentRunRoutes,
  filters: { agent_runs: AGENT_RUN_FILTER, agent_run_activity: AGENT_ACTIVITY_FILTER },
  events: AGENT_EVENTS,
}
