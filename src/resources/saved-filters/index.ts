// The saved filters family: /v1/saved-filters, and what GET /v1/cards?saved_filter= reads (published.ts).
import type { ResourceModule } from '../module.js'
import { SAVED_FILTER_EVENTS } from './events.js'
import { SAVED_FILTER_FILTER } from './query.js'
import { savedFilterRoutes } from './routes.js'

export const savedFilters: ResourceModule = {
  name: 'saved-filters',
  routes: savedFilterRoutes,
  filters: { saved_filters: SAVED_FILTER_FILTER },
  events: SAVED_FILTER_EVENTS,
  // After the boards and users they name.
  exports: [{ table: 'saved_filters' }],
}
