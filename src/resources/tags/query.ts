// Tags: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const TAG_FILTER: FilterResource = {
  table: 'tags',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    color: field.text('color'),
    board: field.id('board_id', 'boards'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const TAG_LIST: ListSpec = {
  resource: 'tags',
  table: 'tags',
  defaultSort: 'name',
  expand: ['board'],
  sort: { name: 'tags.name', created: 'tags.created_at', updated: 'tags.updated_at' },
}
