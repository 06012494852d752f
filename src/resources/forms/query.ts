// Forms: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const FORM_FILTER: FilterResource = {
  table: 'forms',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    slug: field.text('slug'),
    open: field.boolean('open'),
    board: field.id('board_id', 'boards'),
    list: field.id('list_id', 'lists'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const FORM_LIST: ListSpec = {
  resource: 'forms',
  table: 'forms',
  defaultSort: 'name',
  expand: ['board'],
  sort: { name: 'forms.name', slug: 'forms.slug', created: 'forms.created_at', updated: 'forms.updated_at' },
}
