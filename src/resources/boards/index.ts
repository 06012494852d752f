// The boards family: /v1/boards and board membership.
import type { ResourceModule } from '../module.js'
import { BOARD_EVENTS } from './events.js'
import { BOARD_FILTER } from './query.js'
import { boardRoutes } from './routes.js'
import { BOARD_TOOLS } from './mcp.js'

export const boards: ResourceModule = {
  name: 'boards',
  routes: boardRoutes,
  filters: { boards: BOARD_FILTER },
  events: BOARD_EVENTS,
  mcpTools: BOARD_TOOLS,
  exports: [{ table: 'boards' }, { table: 'key_prefixes', key: ['prefix'] }, { table: 'board_members', key: ['board_id', 'user_id'] }],
}
