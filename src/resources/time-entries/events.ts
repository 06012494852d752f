// Events of timers: the time entry, and the task it is on (key, title and link).
import { z } from 'zod'
import { ACTOR, BOARD, CARD_REF, described, ref, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const timerData = z.object({
  id: str('Time entry id'),
  user: ref('user whose time it is'),
  started_at: str('Start, ISO 8601'),
  ended_at: described(z.string().nullable(), 'End, ISO 8601; null in timer.started'),
  duration_seconds: described(z.number(), 'Tracked time in whole seconds; 0 in timer.started'),
  note: str('Note of the entry'),
  billable: described(z.boolean(), 'Whether the time is billable'),
  card: CARD_REF,
  board: BOARD,
  actor: ACTOR,
})

export const TIMER_EVENTS = defineEvents({
  'timer.started': { summary: 'A time-tracking timer started on a task.', data: timerData },
  'timer.stopped': { summary: 'A running timer stopped (also when its user started another one).', data: timerData },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof TIMER_EVENTS> {}
}
