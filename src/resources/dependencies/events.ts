// Events of dependencies, with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, BOARD, CARD_REF, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const dependencyData = z.object({
  id: str('Dependency id'),
  blocker: described(CARD_REF, '{ id, key, title, url } of the task that blocks'),
  blocked: described(CARD_REF, '{ id, key, title, url } of the task that is blocked'),
  board: described(BOARD, "{ id, name } of the blocked task's board (the event goes to its subscriptions)"),
  actor: ACTOR,
})

export const DEPENDENCY_EVENTS = defineEvents({
  'dependency.created': { summary: 'A task was made to wait for another (a dependency was added).', data: dependencyData },
  'dependency.deleted': { summary: 'A dependency between two tasks was removed (also when one of them was deleted for good).', data: dependencyData },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof DEPENDENCY_EVENTS> {}
}
