// The event identifiers of API-DECISIONS §6 and the subscription selectors over them (`card.created`, `card.*`, `*`).

export const EVENT_NAMES = [
  'card.created',
  'card.updated',
  'card.deleted',
  'card.completed',
  'card.reopened',
  'card.assigned',
  'card.unassigned',
  'card.moved',
  'comment.added',
  'comment.deleted',
  'checklist.item_completed',
  'checklist.item_uncompleted',
  'list.created',
  'list.deleted',
  'board.member_added',
  'board.member_removed',
  'tag.created',
  'tag.deleted',
  'timer.started',
  'timer.stopped',
  'question.asked',
  'question.answered',
  'agent.kickoff_delivered',
  'agent.kickoff_expired',
  'agent.handoff',
  'agent.needs_input',
  'agent.blocked',
  'agent.stalled',
  'agent.done_proposed',
  'agent.approved',
  'agent.returned',
  'agent.completed',
  'agent.failed',
  'agent.cancelled',
  'audit.entry',
  'webhook.test',
] as const

export type EventName = (typeof EVENT_NAMES)[number]

// A family id is the event's prefix before the dot, so `<family>.*` selectors need no lookup table.
export const EVENT_FAMILIES = ['card', 'comment', 'checklist', 'list', 'board', 'tag', 'timer', 'question', 'agent', 'audit', 'webhook'] as const
export type EventFamily = (typeof EVENT_FAMILIES)[number]

export const familyOf = (event: string): string => event.slice(0, event.indexOf('.'))

const nameSet: ReadonlySet<string> = new Set(EVENT_NAMES)
const familySet: ReadonlySet<string> = new Set(EVENT_FAMILIES)

export function isEventName(name: string): name is EventName {
  return nameSet.has(name)
}

/** Events a subscription can receive from real activity: `webhook.test` is sent only by the test action, so `*` leaves it out. */
export const SUBSCRIBABLE_EVENT_NAMES: readonly EventName[] = EVENT_NAMES.filter((e) => e !== 'webhook.test')

/** Expands event selectors (an event name, `<family>.*` or `*`) into event names; the first
 *  unknown entry is returned as `invalid:<entry>` so the API can name it in its 422. */
export function expandEventSelectors(selectors: string[]): Set<string> | `invalid:${string}` {
  const out = new Set<string>()
  for (const sel of selectors) {
    if (sel === '*') {
      for (const e of SUBSCRIBABLE_EVENT_NAMES) out.add(e)
    } else if (sel.endsWith('.*') && familySet.has(sel.slice(0, -2))) {
      const family = sel.slice(0, -2)
      for (const e of EVENT_NAMES) if (familyOf(e) === family) out.add(e)
    } else if (isEventName(sel)) {
      out.add(sel)
    } else {
      return `invalid:${sel}`
    }
  }
  return out
}

/** Whether a subscription with these selectors receives `eventName`; unknown selectors never match. */
export function matchesSelectors(selectors: readonly string[], eventName: string): boolean {
  if (!isEventName(eventName)) return false
  return selectors.some(
    (sel) => sel === eventName || (sel === '*' && eventName !== 'webhook.test') || (sel.endsWith('.*') && sel.slice(0, -2) === familyOf(eventName)),
  )
}
