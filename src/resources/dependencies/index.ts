// The dependencies family: /v1/dependencies (a card waiting for another).
import type { ResourceModule } from '../module.js'
import { DEPENDENCY_EVENTS } from './events.js'
import { DEPENDENCY_TOOLS } from './mcp.js'
import { DEPENDENCY_FILTER } from './query.js'
import { dependencyRoutes } from './routes.js'

export const dependencies: ResourceModule = {
  name: 'dependencies',
  routes: dependencyRoutes,
  filters: { dependencies: DEPENDENCY_FILTER },
  events: DEPENDENCY_EVENTS,
  mcpTools: DEPENDENCY_TOOLS,
  exports: [{ table: 'card_dependencies' }],
}
