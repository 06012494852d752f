// Entity links: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { LINK_KINDS, TARGET_TYPES } from './schema.js'

export const ENTITY_LINK_FILTER: FilterResource = {
  table: 'entity_links',
  fields: {
    id: field.id('id'),
    kind: field.oneOf('kind', LINK_KINDS),
    source: field.id('source_card_id', 'cards'),
    target_type: field.oneOf('target_type', TARGET_TYPES),
    target_card: field.id('target_card_id', 'cards'),
    target_note: field.id('target_note_id'),
    target_milestone: field.id('target_milestone_id'),
    url: field.text('url'),
    title: field.text('title'),
    created: field.date('created_at'),
    created_by: field.id('created_by', 'users'),
  },
}

export const ENTITY_LINK_LIST: ListSpec = {
  resource: 'entity_links',
  table: 'entity_links',
  defaultSort: 'created',
  expand: ['cards'],
  sort: { created: 'entity_links.created_at', kind: ['entity_links.kind', 'entity_links.created_at'] },
}
