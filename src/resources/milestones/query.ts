// Milestones: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { MilestoneState } from './schema.js'

export const MILESTONE_FILTER: FilterResource = {
  table: 'milestones',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    description: field.text('description'),
    board: field.id('board_id', 'boards'),
    state: field.oneOf('state', MilestoneState.options),
    due_date: field.date('due_date', true),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const MILESTONE_LIST: ListSpec = {
  resource: 'milestones',
  table: 'milestones',
  defaultSort: 'due_date,created',
  expand: ['board'],
  sort: {
    due_date: 'milestones.due_date',
    name: 'milestones.name',
    created: 'milestones.created_at',
    updated: 'milestones.updated_at',
  },
}
