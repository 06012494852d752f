// The card templates family: /v1/card-templates.
import type { ResourceModule } from '../module.js'
import { CARD_TEMPLATE_EVENTS } from './events.js'
import { CARD_TEMPLATE_TOOLS } from './mcp.js'
import { CARD_TEMPLATE_FILTER } from './query.js'
import { cardTemplateRoutes } from './routes.js'

export const cardTemplates: ResourceModule = {
  name: 'card-templates',
  routes: cardTemplateRoutes,
  filters: { card_templates: CARD_TEMPLATE_FILTER },
  events: CARD_TEMPLATE_EVENTS,
  mcpTools: CARD_TEMPLATE_TOOLS,
  exports: [{ table: 'card_templates' }],
}
