// Groups: filter fields (also reached from users, `groups`, and cards, `team`), sort and expand.
import { field, type FilterResource, type MultiField } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { GroupKind } from './schema.js'

export const GROUP_FILTER: FilterResource = {
  table: 'user_groups',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    kind: field.oneOf('kind', GroupKind.options),
    members: field.users('user_group_members', 'group_id'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

/** A user's groups, by id: `groups ~ "<id>"` (and, through a card's assignees, the cards filter `team = "<id>"`). */
export const USER_GROUPS: MultiField = {
  type: 'multi',
  target: 'groups',
  link: { table: 'user_group_members', from: 'user_id', to: 'group_id' },
  ops: ['=', '!=', '~', '!~'],
}

export const GROUP_LIST: ListSpec = {
  resource: 'groups',
  table: 'user_groups',
  defaultSort: 'name',
  expand: ['members'],
  sort: { name: 'user_groups.name', created: 'user_groups.created_at', updated: 'user_groups.updated_at' },
}
