// Webhook subscriptions: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const WEBHOOK_FILTER: FilterResource = {
  table: 'webhooks',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    url: field.text('url'),
    method: field.oneOf('method', ['POST', 'PUT', 'PATCH']),
    active: field.boolean('active'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
    created_by: field.id('created_by', 'users'),
    boards: { type: 'multi', target: 'board_ids', link: { table: 'webhook_boards', from: 'webhook_id', to: 'board_id' } },
  },
}

// A subscription may name boards its creator has since left: the filter tests membership by board id only and
// never follows `boards` into board fields.
export const BOARD_ID_FILTER: FilterResource = { table: 'boards', fields: { id: field.id('id') } }

export const WEBHOOK_LIST: ListSpec = {
  resource: 'webhooks',
  table: 'webhooks',
  defaultSort: 'created',
  expand: ['boards'],
  sort: { name: 'webhooks.name', created: 'webhooks.created_at', updated: 'webhooks.updated_at' },
}
