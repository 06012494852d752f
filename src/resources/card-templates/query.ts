// Card templates: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const CARD_TEMPLATE_FILTER: FilterResource = {
  table: 'card_templates',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    title: field.text('title'),
    board: field.id('board_id', 'boards'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const CARD_TEMPLATE_LIST: ListSpec = {
  resource: 'card_templates',
  table: 'card_templates',
  defaultSort: 'name',
  expand: ['board'],
  sort: { name: 'card_templates.name', created: 'card_templates.created_at', updated: 'card_templates.updated_at' },
}
