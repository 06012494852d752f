// The comments family: /v1/comments.
import type { ResourceModule } from '../module.js'
import { COMMENT_EVENTS } from './events.js'
import { COMMENT_FILTER } from './query.js'
import { commentRoutes } from './routes.js'
import { COMMENT_TOOLS } from './mcp.js'

export const comments: ResourceModule = {
  name: 'comments',
  routes: commentRoutes,
  filters: { comments: COMMENT_FILTER },
  events: COMMENT_EVENTS,
  mcpTools: COMMENT_TOOLS,
  exports: [{ table: 'comments' }, { table: 'comment_mentions', key: ['comment_id', 'user_id'] }],
}
