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
  notExported: {
    webhooks: 'Subscriptions hold secrets and credentials; they point at receivers a restored workspace may not reach.',
    webhook_boards: 'Subscriptions hold secrets and credentials; they point at receivers a restored workspace may not reach.',
    outbox: 'Deliveries in flight and their logs: operational state of the sending side, not workspace content.',
    webhook_logs: 'Deliveries in flight and their logs: operational state of the sending side, not workspace content.',
    events: 'The event log the change feed and samples read, kept only for the retention period.',
  },
}
