// Events of lists, with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, BOARD, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const listData = (position: string) =>
  z.object({
    id: str('List id'),
    name: str('List name'),
    category: described(z.string(), 'backlog, unstarted, started, completed or canceled'),
    position: described(z.number(), position),
    board: BOARD,
    actor: ACTOR,
  })

export const LIST_EVENTS = defineEvents({
  'list.created': { summary: 'A list was added to a board.', data: listData('Order within the board') },
  'list.deleted': { summary: 'A list was deleted.', data: listData('Order it had within the board') },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof LIST_EVENTS> {}
}
