// Board statuses in API shape, and the `data` of their events.
import type { BoardStatusesTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import type { BoardStatusView } from './schema.js'

export const statusView = (s: BoardStatusesTable): BoardStatusView => ({
  id: s.id,
  board: s.board_id,
  name: s.name,
  category: s.category,
  color: s.color,
  position: s.position,
  created: s.created_at,
  updated: s.updated_at,
})

export const statusEventData = (s: BoardStatusesTable, board: { id: string; name: string }): EventData<'board_status.created'> => ({
  id: s.id,
  name: s.name,
  category: s.category,
  color: s.color,
  position: s.position,
  board: { id: board.id, name: board.name },
})
