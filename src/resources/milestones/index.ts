// The milestones family: /v1/milestones.
import type { ResourceModule } from '../module.js'
import { MILESTONE_EVENTS } from './events.js'
import { MILESTONE_TOOLS } from './mcp.js'
import { MILESTONE_FILTER } from './query.js'
import { milestoneRoutes } from './routes.js'

export const milestones: ResourceModule = {
  name: 'milestones',
  routes: milestoneRoutes,
  filters: { milestones: MILESTONE_FILTER },
  events: MILESTONE_EVENTS,
  mcpTools: MILESTONE_TOOLS,
  // Before the cards, which name their milestone.
  exports: [{ table: 'milestones' }],
}
