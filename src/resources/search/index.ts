// The search family: /v1/search over the full-text index (search_docs, kept by the database's triggers).
import type { ResourceModule } from '../module.js'
import { searchRoutes } from './routes.js'
import { SEARCH_TOOLS } from './mcp.js'

export const searchModule: ResourceModule = {
  name: 'search',
  routes: searchRoutes,
  mcpTools: SEARCH_TOOLS,
  notExported: {
    search_docs: 'The full-text index, derived from cards, comments and notes by the triggers that keep it: an import rebuilds it as their rows go in.',
  },
}
