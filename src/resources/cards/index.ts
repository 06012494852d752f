// The cards family: /v1/cards (tasks).
import type { ResourceModule } from '../module.js'
import { CARD_EVENTS } from './events.js'
import { CARD_FILTER } from './query.js'
import { cardRoutes } from './routes.js'
import { CARD_TOOLS } from './mcp.js'

export const cards: ResourceModule = {
  name: 'cards',
  routes: cardRoutes,
  filters: { cards: CARD_FILTER },
  events: CARD_EVENTS,
  mcpTools: CARD_TOOLS,
  exports: [{ table: 'cards' }, { table: 'card_assignees', key: ['card_id', 'user_id'] }, { table: 'card_watchers', key: ['card_id', 'user_id'] }],
}
