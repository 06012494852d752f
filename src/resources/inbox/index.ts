// The inbox family: /v1/inbox.
import type { ResourceModule } from '../module.js'
import { INBOX_FILTER } from './query.js'
import { inboxRoutes } from './routes.js'

export const inbox: ResourceModule = {
  name: 'inbox',
  routes: inboxRoutes,
  filters: { inbox: INBOX_FILTER },
  notExported: { inbox_items: 'Notifications of past activity, derived from it; not workspace content.' },
}
