// Lists in API shape, and the `data` of list events.
import type { ListsTable } from '../../db/types.js'
import type { ListView } from './schema.js'
import type { EventData } from '../../events/fields.js'

export const listView = (l: ListsTable): ListView => ({
  id: l.id,
  board: l.board_id,
  name: l.name,
  position: l.position,
  category: l.category,
  status: l.status_id,
  created: l.created_at,
  updated: l.updated_at,
})

export const listEventData = (list: ListsTable, board: { id: string; name: string }): EventData<'list.created'> => ({
  id: list.id,
  name: list.name,
  category: list.category,
  position: list.position,
  board: { id: board.id, name: board.name },
})
