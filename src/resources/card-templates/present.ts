// Card templates in API shape, and the `data` of their events.
import type { CardTemplatesTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import type { CardTemplateView } from './schema.js'

export const cardTemplateView = (t: CardTemplatesTable): CardTemplateView => ({
  id: t.id,
  board: t.board_id,
  name: t.name,
  title: t.title,
  description: t.description,
  priority: t.priority,
  tags: JSON.parse(t.tags) as string[],
  assignees: JSON.parse(t.assignees) as string[],
  checklist: JSON.parse(t.checklist) as string[],
  xattr: JSON.parse(t.xattr) as Record<string, unknown>,
  created: t.created_at,
  updated: t.updated_at,
})

export const cardTemplateEventData = (t: CardTemplatesTable, board: { id: string; name: string }): EventData<'card_template.created'> => ({
  id: t.id,
  name: t.name,
  board: { id: board.id, name: board.name },
})
