// Agent workflows: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const WORKFLOW_FILTER: FilterResource = {
  table: 'agent_workflows',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    board: field.id('board_id', 'boards'),
    default: field.boolean('is_default'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const WORKFLOW_LIST: ListSpec = {
  resource: 'agent_workflows',
  table: 'agent_workflows',
  defaultSort: 'created',
  expand: [],
  sort: { name: 'agent_workflows.name', created: 'agent_workflows.created_at', updated: 'agent_workflows.updated_at' },
}
