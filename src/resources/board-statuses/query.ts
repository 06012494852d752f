// Board statuses: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { ListCategory } from '../lists/schema.js'

export const BOARD_STATUS_FILTER: FilterResource = {
  table: 'board_statuses',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    category: field.oneOf('category', ListCategory.options),
    color: field.text('color'),
    board: field.id('board_id', 'boards'),
    position: field.number('position'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const BOARD_STATUS_LIST: ListSpec = {
  resource: 'board_statuses',
  table: 'board_statuses',
  defaultSort: 'position,created',
  expand: ['board'],
  sort: {
    position: 'board_statuses.position',
    name: 'board_statuses.name',
    created: 'board_statuses.created_at',
    updated: 'board_statuses.updated_at',
  },
}
