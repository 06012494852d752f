// Board templates in API shape, and the `data` of their events.
import type { TemplatesTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import type { BoardStructure } from '../boards/schema.js'
import type { TemplateView } from './schema.js'

export const templateView = (t: TemplatesTable): TemplateView => ({
  id: t.id,
  name: t.name,
  description: t.description,
  content: JSON.parse(t.content) as BoardStructure,
  created_by: t.created_by,
  created: t.created_at,
  updated: t.updated_at,
})

export const templateEventData = (t: TemplatesTable): EventData<'template.created'> => ({ id: t.id, name: t.name })
