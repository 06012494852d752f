// Events of forms, with the payload their `data` carries (a submission emits the card's own `card.created`).
import { z } from 'zod'
import { ACTOR, BOARD, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const data = z.object({
  id: str('Form id'),
  name: str('Form name'),
  slug: str('The public address: /v1/forms/public/<slug>'),
  open: described(z.boolean(), 'Whether the form takes submissions'),
  board: BOARD,
  actor: ACTOR,
})

export const FORM_EVENTS = defineEvents({
  'form.created': { summary: 'A form was created on a board.', data },
  'form.updated': { summary: 'A form was changed (opened, closed, its fields or its address).', data },
  'form.deleted': { summary: 'A form was deleted.', data },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof FORM_EVENTS> {}
}
