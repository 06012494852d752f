// The change feed family: GET /v1/events (and the MCP tool recent_changes) over the event log, which it also prunes.
import type { ResourceModule } from '../module.js'
import { FEED_TOOLS } from './mcp.js'
import { feedRoutes } from './routes.js'

export const changeFeed: ResourceModule = { name: 'change-feed', routes: feedRoutes, mcpTools: FEED_TOOLS }
