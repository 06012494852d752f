// Checklists: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const CHECKLIST_FILTER: FilterResource = {
  table: 'checklists',
  fields: {
    id: field.id('id'),
    title: field.text('title'),
    card: field.id('card_id', 'cards'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const CHECKLIST_LIST: ListSpec = {
  resource: 'checklists',
  table: 'checklists',
  defaultSort: 'position,created',
  expand: ['card'],
  sort: { position: 'checklists.position', created: 'checklists.created_at', updated: 'checklists.updated_at', title: 'checklists.title' },
}
