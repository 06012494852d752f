// Sessions: filter fields, sort (no relations to expand: every session listed is the caller's).
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { SESSION_VIA } from './schema.js'

export const SESSION_FILTER: FilterResource = {
  table: 'sessions',
  fields: {
    id: field.id('id'),
    via: field.oneOf('via', SESSION_VIA),
    user_agent: field.text('user_agent'),
    address: field.text('address'),
    created: field.date('created_at'),
    last_used: field.date('last_used_at'),
    expires: field.date('expires_at'),
  },
}

export const SESSION_LIST: ListSpec = {
  resource: 'sessions',
  table: 'sessions',
  defaultSort: '-last_used',
  expand: [],
  sort: { created: 'sessions.created_at', last_used: 'sessions.last_used_at', expires: 'sessions.expires_at' },
}
