// The board templates family: /v1/templates.
import type { ResourceModule } from '../module.js'
import { TEMPLATE_EVENTS } from './events.js'
import { TEMPLATE_FILTER } from './query.js'
import { templateRoutes } from './routes.js'

export const templates: ResourceModule = {
  name: 'templates',
  routes: templateRoutes,
  filters: { templates: TEMPLATE_FILTER },
  events: TEMPLATE_EVENTS,
  exports: [{ table: 'templates' }],
}
