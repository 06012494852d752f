// The lists family: /v1/lists.
import type { ResourceModule } from '../module.js'
import { LIST_EVENTS } from './events.js'
import { LIST_FILTER } from './query.js'
import { listRoutes } from './routes.js'
import { LIST_TOOLS } from './mcp.js'

export const lists: ResourceModule = {
  name: 'lists',
  routes: listRoutes,
  filters: { lists: LIST_FILTER },
  events: LIST_EVENTS,
  mcpTools: LIST_TOOLS,
  exports: [{ table: 'lists' }],
}
