// Events of custom field definitions, with the payload their `data` carries. A change of a card's values is the cards'
// card.updated naming `xattr.<key>`; these announce the definitions themselves.
import { z } from 'zod'
import { ACTOR, BOARD, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const fieldData = z.object({
  id: str('Custom field id'),
  name: str('Field name'),
  key: str('Field key: what cards, filters and sorts name as `xattr.<key>`'),
  type: described(z.string(), 'text, number, date, boolean, select, multi_select, user, url, rollup or formula'),
  options: described(
    z.array(z.object({ id: z.string(), name: z.string(), color: z.string().nullable() })),
    'The options of a select or multi_select field, each { id, name, color }; [] for the other types',
  ),
  required: described(z.boolean(), 'Whether a card must have a value'),
  position: described(z.number(), "Order among the board's fields"),
  rollup: described(z.object({ field: z.string(), over: z.string(), fn: z.string() }).nullable(), "A rollup field's { field, over, fn }, else null"),
  formula: described(z.string().nullable(), "A formula field's formula, else null"),
  board: BOARD,
  actor: ACTOR,
})

export const XATTR_EVENTS = defineEvents({
  'xattr_field.created': { summary: 'A custom field was added to a board.', data: fieldData },
  'xattr_field.updated': {
    summary:
      'A custom field was renamed, re-keyed, reordered, or its options, requirement, rollup or formula changed (cards that lost a dropped option each get card.updated naming `xattr.<key>`).',
    data: fieldData.extend({
      changes: described(z.array(z.string()), 'Names of the attributes that changed: name, key, options, required, position, rollup, formula'),
    }),
  },
  'xattr_field.deleted': {
    summary: 'A custom field was deleted (each card not in the trash that held a value of it gets card.updated naming `xattr.<key>`).',
    data: fieldData,
  },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof XATTR_EVENTS> {}
}
