// Signing secrets: filter fields and sort.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const SIGNING_SECRET_FILTER: FilterResource = {
  table: 'signing_secrets',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    created_by: field.id('created_by', 'users'),
    created_at: field.date('created_at'),
    updated_at: field.date('updated_at'),
  },
}

export const SIGNING_SECRET_LIST: ListSpec = {
  resource: 'signing_secrets',
  table: 'signing_secrets',
  defaultSort: 'name',
  expand: [],
  sort: { name: 'signing_secrets.name', created_at: 'signing_secrets.created_at', updated_at: 'signing_secrets.updated_at' },
}
