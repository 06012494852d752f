// The incoming webhooks family: /v1/webhooks/incoming.
import type { ResourceModule } from '../module.js'
import { INCOMING_FILTER } from './query.js'
import { receiveIncoming } from './receive.js'
import { incomingRoutes, receiveIncomingDoc } from './routes.js'

export const incoming: ResourceModule = {
  name: 'incoming',
  routes: incomingRoutes,
  filters: { incoming_endpoints: INCOMING_FILTER },
  receivers: [{ path: '/v1/hooks/:path', handler: receiveIncoming, doc: receiveIncomingDoc }],
  notExported: {
    incoming_endpoints: 'Endpoints hold secrets and received requests are transient; a restored workspace sets its endpoints up again.',
    incoming_endpoint_boards: 'Endpoints hold secrets and received requests are transient; a restored workspace sets its endpoints up again.',
    incoming_requests: 'Endpoints hold secrets and received requests are transient; a restored workspace sets its endpoints up again.',
  },
}
