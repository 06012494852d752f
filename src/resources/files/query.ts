// Files: filter fields, sort and expand. The bytes are never a field.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'

export const FILE_FILTER: FilterResource = {
  table: 'files',
  fields: {
    id: field.id('id'),
    name: field.text('name'),
    content_type: field.text('content_type'),
    size: field.number('size', { integer: true }),
    sha256: field.text('sha256'),
    card: field.id('card_id', 'cards'),
    note: field.id('note_id', 'notes'),
    created_by: field.id('created_by', 'users'),
    created: field.date('created_at'),
  },
}

export const FILE_LIST: ListSpec = {
  resource: 'files',
  table: 'files',
  defaultSort: 'created',
  expand: ['card', 'note'],
  sort: { created: 'files.created_at', name: 'files.name', size: 'files.size' },
}
