// Inbox: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { INBOX_KINDS } from './schema.js'

export const INBOX_FILTER: FilterResource = {
  table: 'inbox_items',
  fields: {
    id: field.id('id'),
    kind: field.oneOf('kind', INBOX_KINDS),
    card: field.id('card_id', 'cards'),
    comment: field.id('comment_id'),
    webhook: field.id('webhook_id'),
    read_at: field.date('read_at'),
    created: field.date('created_at'),
  },
}

export const INBOX_LIST: ListSpec = {
  resource: 'inbox',
  table: 'inbox_items',
  defaultSort: '-created',
  expand: ['card'],
  sort: { created: 'inbox_items.created_at', read_at: 'inbox_items.read_at', kind: 'inbox_items.kind' },
}
