// The event registry: the events the families register (src/resources/index.ts fills it from the module list) and
// the planned ones, and the subscription selectors over their names (`card.created`, `card.*`, `*`).
import type { EventDef, EventDefs } from './fields.js'
import { PLANNED_EVENTS } from './planned.js'

/**
 * The order the catalog (and the OpenAPI `webhooks` section) has always listed families in: it is what API users
 * see, so it does not follow the mounting order of the modules. A family not named here comes after these, in the
 * order it registered; it needs no entry here to work.
 */
const LISTING_ORDER = ['card', 'comment', 'checklist', 'list', 'board', 'tag', 'timer', 'question', 'agent', 'audit', 'webhook']

/** `webhook.test` is sent only by the test action, so `*` leaves it out. */
const ONLY_ON_REQUEST = 'webhook.test'

export const familyOf = (event: string): string => event.slice(0, event.indexOf('.'))

const emitted = new Map<string, EventDef>()
const planned = new Map<string, EventDef>(Object.entries(PLANNED_EVENTS))
let names: readonly string[] | undefined
let families: ReadonlySet<string> | undefined

/** Adds the events a family emits, with their payload schemas. */
export function registerEvents(defs: EventDefs): void {
  for (const [name, def] of Object.entries(defs)) {
    if (emitted.has(name) && emitted.get(name) !== def) throw new Error(`event ${name} is defined twice`)
    emitted.set(name, def)
    planned.delete(name)
  }
  names = families = undefined
}

const rank = (family: string): number => {
  const i = LISTING_ORDER.indexOf(family)
  return i === -1 ? LISTING_ORDER.length : i
}

/** Every event of the catalog, emitted and planned, families in listing order, each family's events as it defines them. */
export function eventNames(): readonly string[] {
  return (names ??= [...emitted.keys(), ...planned.keys()].sort((a, b) => rank(familyOf(a)) - rank(familyOf(b))))
}

/** An event's definition and whether some code emits it (a subscription to only planned events would receive nothing). */
export function eventDef(name: string): { def: EventDef; available: boolean } | undefined {
  const def = emitted.get(name) ?? planned.get(name)
  return def && { def, available: emitted.has(name) }
}

export const isAvailable = (name: string): boolean => emitted.has(name)

export function isEventName(name: string): boolean {
  return emitted.has(name) || planned.has(name)
}

const isFamily = (family: string): boolean => (families ??= new Set(eventNames().map(familyOf))).has(family)

/** Events a subscription can receive from real activity. */
export const subscribableEventNames = (): readonly string[] => eventNames().filter((e) => e !== ONLY_ON_REQUEST)

/** Expands event selectors (an event name, `<family>.*` or `*`) into event names; the first
 *  unknown entry is returned as `invalid:<entry>` so the API can name it in its 422. */
export function expandEventSelectors(selectors: string[]): Set<string> | `invalid:${string}` {
  const out = new Set<string>()
  for (const sel of selectors) {
    if (sel === '*') {
      for (const e of subscribableEventNames()) out.add(e)
    } else if (sel.endsWith('.*') && isFamily(sel.slice(0, -2))) {
      const family = sel.slice(0, -2)
      for (const e of eventNames()) if (familyOf(e) === family) out.add(e)
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
    (sel) => sel === eventName || (sel === '*' && eventName !== ONLY_ON_REQUEST) || (sel.endsWith('.*') && sel.slice(0, -2) === familyOf(eventName)),
  )
}
