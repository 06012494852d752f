// Agent runs and their activity: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { RUN_STATUSES } from './schema.js'

export const AGENT_RUN_FILTER: FilterResource = {
  table: 'agent_runs',
  fields: {
    id: field.id('id'),
    status: field.oneOf('status', RUN_STATUSES),
    agent: field.id('agent_id', 'users'),
    card: field.id('card_id', 'cards'),
    board: field.id('board_id', 'boards'),
    workflow: field.id('workflow_id'),
    created: field.date('created_at'),
    last_activity_at: field.date('last_activity_at'),
    finished_at: field.date('finished_at'),
  },
}

export const AGENT_RUN_LIST: ListSpec = {
  resource: 'agent_runs',
  table: 'agent_runs',
  defaultSort: '-created',
  expand: ['card'],
  sort: { created: 'agent_runs.created_at', last_activity_at: 'agent_runs.last_activity_at', status: 'agent_runs.status' },
}

export const AGENT_ACTIVITY_FILTER: FilterResource = {
  table: 'agent_run_activity',
  fields: { id: field.id('id'), type: field.text('type'), at: field.date('at') },
}

export const AGENT_ACTIVITY_LIST: ListSpec = {
  resource: 'agent_run_activity',
  table: 'agent_run_activity',
  defaultSort: 'at',
  expand: [],
  sort: { at: 'agent_run_activity.seq' },
}
