// Note publications: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const NOTE_PUBLICATION_FILTER: FilterResource = {
  table: 'note_publications',
  fields: {
    id: field.id('id'),
    // The list holds the publications of notes the viewer sees, so the note's fields are theirs to filter on.
    note: field.id('note_id', 'notes'),
    title: field.text('title'),
    created_by: field.id('created_by', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const NOTE_PUBLICATION_LIST: ListSpec = {
  resource: 'note_publications',
  table: 'note_publications',
  defaultSort: '-updated',
  expand: ['note'],
  sort: { updated: 'note_publications.updated_at', created: 'note_publications.created_at', title: 'note_publications.title' },
}
