// Events of checklists: the item, its checklist, and the task it is on (key, title and link).
import { z } from 'zod'
import { ACTOR, BOARD, CARD_REF, ref, str, type EventDefs } from '../../events/fields.js'

const itemData = z.object({
  id: str('Checklist item id'),
  text: str('Item text'),
  checklist: ref('checklist (its title)'),
  card: CARD_REF,
  board: BOARD,
  actor: ACTOR,
})

export const CHECKLIST_EVENTS: EventDefs = {
  'checklist.item_completed': { summary: 'A checklist item was ticked.', data: itemData },
  'checklist.item_uncompleted': { summary: 'A ticked checklist item was unticked.', data: itemData },
}
