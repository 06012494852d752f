// Agent kickoffs: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { POWERS } from '../../access/roles.js'
import { KICKOFF_STATUSES } from './schema.js'

export const KICKOFF_FILTER: FilterResource = {
  table: 'agent_kickoffs',
  fields: {
    id: field.id('id'),
    status: field.oneOf('status', KICKOFF_STATUSES),
    via: field.oneOf('via', POWERS),
    agent: field.id('agent_id', 'users'),
    card: field.id('card_id', 'cards'),
    board: field.id('board_id', 'boards'),
    workflow: field.id('workflow_id'),
    attempts: field.number('attempts', { integer: true }),
    expires_at: field.date('expires_at'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const KICKOFF_LIST: ListSpec = {
  resource: 'agent_kickoffs',
  table: 'agent_kickoffs',
  defaultSort: '-created',
  expand: ['card'],
  sort: { created: 'agent_kickoffs.created_at', updated: 'agent_kickoffs.updated_at', expires_at: 'agent_kickoffs.expires_at' },
}
