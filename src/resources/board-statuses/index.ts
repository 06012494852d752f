// The board statuses family: /v1/board-statuses.
import type { ResourceModule } from '../module.js'
import { BOARD_STATUS_EVENTS } from './events.js'
import { BOARD_STATUS_FILTER } from './query.js'
import { boardStatusRoutes } from './routes.js'

export const boardStatuses: ResourceModule = {
  name: 'board-statuses',
  routes: boardStatusRoutes,
  filters: { board_statuses: BOARD_STATUS_FILTER },
  events: BOARD_STATUS_EVENTS,
  // Before the lists, which name their status.
  exports: [{ table: 'board_statuses' }],
}
