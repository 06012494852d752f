// Incoming endpoints: filter fields and sort.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const INCOMING_FILTER: FilterResource = {
  table: 'incoming_endpoints',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    paused: field.boolean('paused'),
    accept_files: field.boolean('accept_files'),
    created_by: field.id('created_by', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const INCOMING_LIST: ListSpec = {
  resource: 'incoming_endpoints',
  table: 'incoming_endpoints',
  defaultSort: 'created',
  expand: [],
  sort: { name: 'incoming_endpoints.name', created: 'incoming_endpoints.created_at', updated: 'incoming_endpoints.updated_at' },
}
