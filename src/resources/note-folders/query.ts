// Note folders: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const NOTE_FOLDER_FILTER: FilterResource = {
  table: 'note_folders',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    // A plain id, not a relation: a board-less parent may be one the viewer does not see (an admin's), whose name stays hidden.
    parent: field.id('parent_id'),
    board: field.id('board_id', 'boards'),
    created_by: field.id('created_by', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const NOTE_FOLDER_LIST: ListSpec = {
  resource: 'note_folders',
  table: 'note_folders',
  defaultSort: 'name',
  expand: ['parent', 'board'],
  sort: { name: 'note_folders.name', created: 'note_folders.created_at', updated: 'note_folders.updated_at' },
}
