// Saved filters: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { SAVED_FILTER_RESOURCES } from './schema.js'

export const SAVED_FILTER_FILTER: FilterResource = {
  table: 'saved_filters',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    resource: field.oneOf('resource', SAVED_FILTER_RESOURCES),
    filter: field.text('filter'),
    board: field.id('board_id', 'boards'),
    shared: field.boolean('shared'),
    created_by: field.id('created_by', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const SAVED_FILTER_LIST: ListSpec = {
  resource: 'saved_filters',
  table: 'saved_filters',
  defaultSort: 'name',
  // None: the record's own `expand` is the relations it expands on the cards.
  expand: [],
  sort: { name: 'saved_filters.name', created: 'saved_filters.created_at', updated: 'saved_filters.updated_at' },
}
