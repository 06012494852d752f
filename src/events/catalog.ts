// The event catalog: every event with its family, summary, the fields its `data` carries and whether taskd emits it
// yet. It is read off the registry (src/events/names.ts), which the families' events.ts and planned.ts fill.
import type { z } from 'zod'
import { typeName } from './fields.js'
import { eventDef, eventNames, familyOf } from './names.js'

export interface EventField {
  name: string
  type: string
  description: string
}
export interface EventCatalogEntry {
  event: string
  family: string
  summary: string
  available: boolean
  fields: EventField[]
}

/** The emitted events and their payload schemas, for the OpenAPI `webhooks` section. */
export const emittedEvents = (): { event: string; summary: string; data: z.ZodObject }[] =>
  eventNames().flatMap((event) => {
    const d = eventDef(event)!
    return d.available ? [{ event, ...d.def }] : []
  })

export function eventCatalog(): readonly EventCatalogEntry[] {
  return eventNames().map((event) => {
    const { def, available } = eventDef(event)!
    return {
      event,
      family: familyOf(event),
      summary: def.summary,
      available,
      fields: Object.entries(def.data.shape).map(([name, s]) => ({
        name,
        type: typeName(s as z.ZodType),
        description: (s as z.ZodType).meta()?.description ?? '',
      })),
    }
  })
}
