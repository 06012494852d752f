// The users family: /v1/users.
import type { ResourceModule } from '../module.js'
import { USER_FILTER } from './query.js'
import { userRoutes } from './routes.js'
import { USER_TOOLS } from './mcp.js'

export const users: ResourceModule = {
  name: 'users',
  routes: userRoutes,
  filters: { users: USER_FILTER },
  mcpTools: USER_TOOLS,
  exports: [{ table: 'workspace' }, { table: 'users' }],
}
