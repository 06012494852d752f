// Events of card templates, with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, BOARD, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const data = z.object({ id: str('Card template id'), name: str('Card template name'), board: BOARD, actor: ACTOR })

export const CARD_TEMPLATE_EVENTS = defineEvents({
  'card_template.created': { summary: 'A card template was created on a board.', data },
  'card_template.updated': { summary: 'A card template was changed.', data },
  'card_template.deleted': { summary: 'A card template was deleted.', data },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof CARD_TEMPLATE_EVENTS> {}
}
