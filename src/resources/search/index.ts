// The search family: /v1/search.
import type { ResourceModule } from '../module.js'
import { searchRoutes } from './routes.js'
import { SEARCH_TOOLS } from './mcp.js'

export const searchModule: ResourceModule = { name: 'search', routes: searchRoutes, mcpTools: SEARCH_TOOLS }
