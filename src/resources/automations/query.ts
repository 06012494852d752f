// Automations and runs: filter fields and sort.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { RunStatus } from './schema.js'

export const AUTOMATION_FILTER: FilterResource = {
  table: 'automations',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    board: field.id('board_id', 'boards'),
    active: field.boolean('active'),
    trigger: field.oneOf('trigger_type', ['incoming_webhook', 'event', 'schedule']),
    created_by: field.id('created_by', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const AUTOMATION_LIST: ListSpec = {
  resource: 'automations',
  table: 'automations',
  defaultSort: 'created',
  expand: [],
  sort: { name: 'automations.name', created: 'automations.created_at', updated: 'automations.updated_at' },
}

export const RUN_FILTER: FilterResource = {
  table: 'automation_runs',
  fields: {
    id: field.id('id'),
    status: field.oneOf('status', RunStatus.options),
    created: field.date('created_at'),
    finished: field.date('finished_at'),
  },
}

export const RUN_LIST: ListSpec = {
  resource: 'automation_runs',
  table: 'automation_runs',
  defaultSort: '-created',
  expand: [],
  // seq orders the runs of one automation in the order they were queued, also within one millisecond.
  sort: { created: 'automation_runs.seq' },
}
