// Tags in API shape, and the `data` of tag events.
import type { TagsTable } from '../../db/types.js'
import type { TagView } from './schema.js'
import type { EventData } from '../../events/fields.js'

export const tagView = (t: TagsTable): TagView => ({
  id: t.id,
  board: t.board_id,
  name: t.name,
  color: t.color,
  created: t.created_at,
  updated: t.updated_at,
})

export const tagEventData = (tag: TagsTable, board: { id: string; name: string }): EventData<'tag.created'> => ({
  id: tag.id,
  name: tag.name,
  color: tag.color,
  board: { id: board.id, name: board.name },
})
