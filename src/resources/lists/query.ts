// Lists: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { ListCategory } from './schema.js'

export const LIST_FILTER: FilterResource = {
  table: 'lists',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    board: field.id('board_id', 'boards'),
    category: field.oneOf('category', ListCategory.options),
    position: field.number('position'),
    status: field.id('status_id', 'board_statuses'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const LIST_LIST: ListSpec = {
  resource: 'lists',
  table: 'lists',
  defaultSort: 'position,created',
  expand: ['board'],
  sort: { position: 'lists.position', created: 'lists.created_at', updated: 'lists.updated_at', name: 'lists.name' },
}
