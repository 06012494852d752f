// Events of entity links, with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, BOARD, CARD_REF, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const linkData = z.object({
  id: str('Entity link id'),
  kind: str('relates_to, duplicates or parent_of'),
  source: described(CARD_REF, '{ id, key, title, url } of the task the link starts from'),
  target: described(
    z.object({ type: z.string(), id: z.string().nullable(), url: z.string().nullable(), title: z.string().nullable() }),
    '{ type, id, url, title } of the target: a card, note or milestone id, or a URL (stored only, never fetched)',
  ),
  board: described(BOARD, "{ id, name } of the source task's board (the event goes to its subscriptions)"),
  actor: ACTOR,
})

export const ENTITY_LINK_EVENTS = defineEvents({
  'entity_link.created': { summary: 'A link was made from a task to a task, note, milestone or URL (a parent_of link: a task got a parent).', data: linkData },
  'entity_link.deleted': {
    summary: 'A link from a task was removed (also when a task lost its parent, or one of the linked records was deleted for good).',
    data: linkData,
  },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof ENTITY_LINK_EVENTS> {}
}
