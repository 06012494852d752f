// Events of board statuses, with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, BOARD, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const statusData = z.object({
  id: str('Status id'),
  name: str('Status name'),
  category: described(z.string(), 'backlog, unstarted, started, completed or canceled'),
  color: described(z.string().nullable(), 'Status colour'),
  position: described(z.number(), "Order among the board's statuses"),
  board: BOARD,
  actor: ACTOR,
})

export const BOARD_STATUS_EVENTS = defineEvents({
  'board_status.created': { summary: 'A status was added to a board.', data: statusData },
  'board_status.updated': { summary: 'A board status was renamed, recoloured, moved or given another category (its lists follow).', data: statusData },
  'board_status.deleted': { summary: 'A board status was deleted.', data: statusData },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof BOARD_STATUS_EVENTS> {}
}
