// The event catalog (API-DECISIONS §6): every event with its family, summary, the fields its `data` carries and
// whether taskd emits it yet. Payload schemas come from the families' events.ts (registered by src/resources/index.ts);
// events whose family is not built yet come from planned.ts and are listed with `available: false`.
import type { z } from 'zod'
import { type EventDef, type EventDefs, typeName } from './fields.js'
import { EVENT_NAMES, familyOf, type EventFamily, type EventName } from './names.js'
import { PLANNED_EVENTS } from './planned.js'

export interface EventField {
  name: string
  type: string
  description: string
}
export interface EventCatalogEntry {
  event: EventName
  family: EventFamily
  summary: string
  available: boolean
  fields: EventField[]
}

const emitted = new Map<EventName, EventDef>()
let cached: EventCatalogEntry[] | undefined

/** Adds the events a family emits, with their payload schemas. */
export function registerEvents(defs: EventDefs): void {
  for (const [name, def] of Object.entries(defs) as [EventName, EventDef][]) {
    if (emitted.has(name) && emitted.get(name) !== def) throw new Error(`event ${name} is defined twice`)
    emitted.set(name, def)
  }
  cached = undefined
}

/** Whether some code emits this event (a subscription to only unavailable events would never receive anything). */
export const isAvailable = (name: string): boolean => emitted.has(name as EventName)

/** The emitted events and their payload schemas, for the OpenAPI `webhooks` section. */
export const emittedEvents = (): { event: EventName; summary: string; data: z.ZodObject }[] =>
  EVENT_NAMES.flatMap((event) => {
    const d = emitted.get(event)
    return d ? [{ event, ...d }] : []
  })

export function eventCatalog(): readonly EventCatalogEntry[] {
  return (cached ??= EVENT_NAMES.map((event) => {
    const def = emitted.get(event) ?? PLANNED_EVENTS[event]
    if (!def) throw new Error(`event ${event} has no definition`)
    return {
      event,
      family: familyOf(event) as EventFamily,
      summary: def.summary,
      available: emitted.has(event),
      fields: Object.entries(def.data.shape).map(([name, s]) => ({
        name,
        type: typeName(s as z.ZodType),
        description: (s as z.ZodType).meta()?.description ?? '',
      })),
    }
  }))
}
