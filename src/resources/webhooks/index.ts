// The webhooks family: /v1/webhooks (subscriptions, catalog, samples, logs, test). Delivery itself is src/webhooks/.
import type { ResourceModule } from '../module.js'
import { WEBHOOK_EVENTS } from './events.js'
import { BOARD_ID_FILTER, WEBHOOK_FILTER } from './query.js'
import { webhookRoutes } from './routes.js'

export const webhooks: ResourceModule = {
  name: 'webhooks',
  routes: webhookRoutes,
  filters: { webhooks: WEBHOOK_FILTER, board_ids: BOARD_ID_FILTER },
  events: WEBHOOK_EVENTS,
}
