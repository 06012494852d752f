// JSON columns (TEXT holding JSON): written and read through the zod schema of what they hold, so the schema is the
// one source of their type instead of a cast at every read.
import type { z } from 'zod'

/** The column's text for a value of the schema. */
export const toJsonColumn = <S extends z.ZodType>(_schema: S, value: z.input<S>): string => JSON.stringify(value)

/**
 * The value a JSON column holds, typed by its schema. Not validated again: taskd alone writes these columns, from
 * values of that schema (parsed at the API's edge), so a check on every read would only cost time.
 */
export const fromJsonColumn = <S extends z.ZodType>(_schema: S, text: string): z.output<S> => JSON.parse(text) as z.output<S>
