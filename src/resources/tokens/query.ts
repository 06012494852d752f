// Tokens: filter fields, sort and expand.
import { Permission } from '../../access/roles.js'
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const TOKEN_FILTER: FilterResource = {
  table: 'tokens',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    permission: field.oneOf('permission', Permission.options),
    prefix: field.text('prefix'),
    expires_at: field.date('expires_at'),
    last_used_at: field.date('last_used_at'),
    created: field.date('created_at'),
    owner: field.id('user_id', 'users'),
  },
}

export const TOKEN_LIST: ListSpec = {
  resource: 'tokens',
  table: 'tokens',
  defaultSort: '-created',
  expand: ['owner'],
  sort: { created: 'tokens.created_at', name: 'tokens.name', last_used: 'tokens.last_used_at', expires: 'tokens.expires_at' },
}
