// Events of board membership, with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, BOARD, described, defineEvents, type PayloadsOf } from '../../events/fields.js'

const member = (who: string) => described(z.object({ id: z.string(), name: z.string(), kind: z.enum(['human', 'agent']) }), who)

export const BOARD_EVENTS = defineEvents({
  'board.member_added': {
    summary: 'A user became a member of a board.',
    data: z.object({ board: BOARD, user: member('{ id, name, kind } of the member; kind is human or agent'), actor: ACTOR }),
  },
  'board.member_removed': {
    summary: 'A user stopped being a member of a board.',
    data: z.object({ board: BOARD, user: member('{ id, name, kind } of the former member'), actor: ACTOR }),
  },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof BOARD_EVENTS> {}
}
