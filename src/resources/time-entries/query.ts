// Time entries: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const TIME_ENTRY_FILTER: FilterResource = {
  table: 'time_entries',
  fields: {
    id: field.id('id'),
    card: field.id('card_id', 'cards'),
    user: field.id('user_id', 'users'),
    started_at: field.date('started_at'),
    ended_at: field.date('ended_at'),
    billable: field.boolean('billable'),
    // Null while the timer runs: a running entry matches no comparison of duration_seconds but `= null`.
    duration_seconds: field.number('duration_seconds', { integer: true }),
    note: field.text('note'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const TIME_ENTRY_LIST: ListSpec = {
  resource: 'time_entries',
  table: 'time_entries',
  defaultSort: '-started_at',
  expand: ['card', 'user'],
  sort: { started_at: 'time_entries.started_at', duration_seconds: 'time_entries.duration_seconds', created: 'time_entries.created_at' },
}
