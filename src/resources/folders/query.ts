// Folders: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const FOLDER_FILTER: FilterResource = {
  table: 'folders',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    parent: field.id('parent_id', 'folders'),
    position: field.number('position'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const FOLDER_LIST: ListSpec = {
  resource: 'folders',
  table: 'folders',
  defaultSort: 'position,created',
  expand: ['parent'],
  sort: { position: 'folders.position', name: 'folders.name', created: 'folders.created_at', updated: 'folders.updated_at' },
}
