// Comments: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const COMMENT_FILTER: FilterResource = {
  table: 'comments',
  fields: {
    id: field.id('id'),
    body: field.text('body'),
    card: field.id('card_id', 'cards'),
    author: field.id('author_id', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const COMMENT_LIST: ListSpec = {
  resource: 'comments',
  table: 'comments',
  defaultSort: 'created',
  expand: ['card'],
  sort: { created: 'comments.created_at', updated: 'comments.updated_at' },
}
