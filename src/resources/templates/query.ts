// Board templates: filter fields and sort.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const TEMPLATE_FILTER: FilterResource = {
  table: 'templates',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    description: field.text('description'),
    created_by: field.id('created_by', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const TEMPLATE_LIST: ListSpec = {
  resource: 'templates',
  table: 'templates',
  defaultSort: 'name',
  expand: [],
  sort: { name: 'templates.name', created: 'templates.created_at', updated: 'templates.updated_at' },
}
