// Events of checklists: the item, its checklist, and the task it is on (key, title and link).
import { z } from 'zod'
import { ACTOR, BOARD, CARD_REF, ref, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const itemData = z.object({
  id: str('Checklist item id'),
  text: str('Item text'),
  checklist: ref('checklist (its title)'),
  card: CARD_REF,
  board: BOARD,
  actor: ACTOR,
})

export const CHECKLIST_EVENTS = defineEvents({
  'checklist.item_completed': { summary: 'A checklist item was ticked.', data: itemData },
  'checklist.item_uncompleted': { summary: 'A ticked checklist item was unticked.', data: itemData },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof CHECKLIST_EVENTS> {}
}
