// Notes: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const NOTE_FILTER: FilterResource = {
  table: 'notes',
  fields: {
    id: field.id('id'),
    title: field.text('title'),
    body: field.text('body'),
    // Plain ids, not relations: a card moved to another board since, or an admin's board-less folder, may be out of the viewer's sight.
    folder: field.id('folder_id'),
    board: field.id('board_id', 'boards'),
    card: field.id('card_id'),
    created_by: field.id('created_by', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const NOTE_LIST: ListSpec = {
  resource: 'notes',
  table: 'notes',
  defaultSort: '-updated',
  expand: ['folder', 'board', 'card'],
  sort: { updated: 'notes.updated_at', created: 'notes.created_at', title: 'notes.title' },
}
