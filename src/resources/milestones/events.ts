// Events of milestones, with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, BOARD, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const milestoneData = z.object({
  id: str('Milestone id'),
  name: str('Milestone name'),
  state: described(z.string(), 'open or closed'),
  due_date: described(z.string().nullable(), 'Due date, `YYYY-MM-DD` or ISO 8601'),
  board: BOARD,
  actor: ACTOR,
})

export const MILESTONE_EVENTS = defineEvents({
  'milestone.created': { summary: 'A milestone was added to a board.', data: milestoneData },
  'milestone.updated': { summary: 'A milestone was renamed, rescheduled, closed or re-opened.', data: milestoneData },
  'milestone.deleted': { summary: 'A milestone was deleted (its cards no longer name it).', data: milestoneData },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof MILESTONE_EVENTS> {}
}
