// The audit log: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { AUDIT_ACTOR_TYPES } from './schema.js'

export const AUDIT_FILTER: FilterResource = {
  table: 'audit_log',
  fields: {
    id: field.id('id'),
    action: field.text('action'),
    actor: field.id('actor_id'),
    actor_type: field.oneOf('actor_type', AUDIT_ACTOR_TYPES),
    actor_name: field.text('actor_name'),
    target: field.id('target_id'),
    target_type: field.text('target_type'),
    target_name: field.text('target_name'),
    board: field.id('board_id'),
    request_id: field.text('request_id'),
    created: field.date('created_at'),
  },
}

export const AUDIT_LIST: ListSpec = {
  resource: 'audit',
  table: 'audit_log',
  defaultSort: '-created',
  expand: ['board'],
  sort: { created: 'audit_log.created_at', action: ['audit_log.action', 'audit_log.created_at'] },
}
