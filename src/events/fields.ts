// zod pieces the families' event payload schemas share, and the payload types by event name (read off those schemas).
import { z } from 'zod'

/** An event's summary and the schema of the `data` it carries. */
export interface EventDef {
  summary: string
  data: z.ZodObject
}
/** A family's events by name (`<family>.<event>`: the part before the dot is the family a selector `<family>.*` names). */
export type EventDefs = Readonly<Record<`${string}.${string}`, EventDef>>

/** Keeps each schema's own type (a plain `EventDefs` annotation would widen it), so payload types can be inferred. */
export const defineEvents = <const D extends EventDefs>(defs: D): D => defs

/** The payload type of each event of `D`, as its schema parses it. */
export type PayloadsOf<D extends EventDefs> = { [N in keyof D]: D[N] extends { data: infer S extends z.ZodType } ? z.output<S> : never }

/**
 * Payload types by event name. Empty here: each family's events.ts adds its own by declaration merging
 * (`interface EventPayloads extends PayloadsOf<typeof ITS_EVENTS> {}`), so src/events never imports a family.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface EventPayloads {}
/** The events code can emit (planned ones, which nothing emits yet, are not among them). */
export type EventName = keyof EventPayloads & string
/** The payload of event `N` as code gives it: without `actor`, which emitEvent adds from the event's actor. */
export type EventData<N extends EventName> = Omit<EventPayloads[N], 'actor'>

export const described = <S extends z.ZodType>(schema: S, description: string): S => schema.meta({ description })
/** `{ id, name }` of a related record; name is null when the record is gone. */
export const ref = (what: string) => described(z.object({ id: z.string(), name: z.string().nullable() }), `{ id, name } of the ${what}`)
export const str = (description: string) => described(z.string(), description)

export const BOARD = ref('board')
// A run (an incoming webhook's or an automation's), a form submission and a git connection's hook act under their own
// name (the endpoint's, the automation's, the form's, the connection's, with its id), and say which kind they are.
export const ACTOR = described(
  ref('user or agent who caused the event').extend({
    kind: described(
      z.enum(['incoming_webhook', 'automation', 'form', 'git']).optional(),
      'Set when no user caused the event: incoming_webhook or automation (a run), form (a submission to a public form: id and name are the form’s), or git (a git connection’s hook: id and name are the connection’s)',
    ),
  }),
  '{ id, name } of the user or agent who caused the event',
)
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
