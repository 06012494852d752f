// Users: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { Role, UserKind } from '../../access/roles.js'
import { USER_GROUPS } from '../groups/query.js'

export const USER_FILTER: FilterResource = {
  table: 'users',
  fields: {
    id: field.id('id'),
    email: field.text('email', { nocase: true }),
    name: field.text('name'),
    role: field.oneOf('role', Role.options),
    kind: field.oneOf('kind', UserKind.options),
    created: field.date('created_at'),
    groups: USER_GROUPS,
  },
}

export const USER_SORT = { created: 'users.created_at', name: 'users.name', email: 'lower(users.email)', role: 'users.role' }
export const USER_LIST: ListSpec = { resource: 'users', table: 'users', sort: USER_SORT, defaultSort: 'created', expand: ['boards'] }
