// Dependencies: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const DEPENDENCY_FILTER: FilterResource = {
  table: 'card_dependencies',
  fields: {
    id: field.id('id'),
    blocker: field.id('blocker_id', 'cards'),
    blocked: field.id('blocked_id', 'cards'),
    created: field.date('created_at'),
    created_by: field.id('created_by', 'users'),
  },
}

export const DEPENDENCY_LIST: ListSpec = {
  resource: 'dependencies',
  table: 'card_dependencies',
  defaultSort: 'created',
  expand: ['cards'],
  sort: { created: 'card_dependencies.created_at' },
}
