// zod pieces the families' event payload schemas share; the catalog's field lists are read off these schemas.
import { z } from 'zod'
import type { EventName } from './names.js'

/** An event's summary and the schema of the `data` it carries. */
export interface EventDef {
  summary: string
  data: z.ZodObject
}
export type EventDefs = Partial<Record<EventName, EventDef>>

export const described = <S extends z.ZodType>(schema: S, description: string): S => schema.meta({ description })
/** `{ id, name }` of a related record; name is null when the record is gone. */
export const ref = (what: string) => described(z.object({ id: z.string(), name: z.string().nullable() }), `{ id, name } of the ${what}`)
export const str = (description: string) => described(z.string(), description)

export const BOARD = ref('board')
export const ACTOR = ref('user or agent who caused the event')
export const CARD_REF = described(
  z.object({ id: z.string(), key: z.string(), title: z.string(), url: z.string() }),
  '{ id, key, title, url } of the task: record id, human key, title and a link to the task',
)

/** The catalog's type names: string, number, boolean, object, array, with `|null` for nullable fields. */
export function typeName(schema: z.ZodType): string {
  const def = (schema as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def
  switch (def.type) {
    case 'nullable':
      return `${typeName(def.innerType!)}|null`
    case 'optional':
    case 'default':
      return typeName(def.innerType!)
    case 'enum':
    case 'literal':
      return 'string'
    default:
      return def.type
  }
}
