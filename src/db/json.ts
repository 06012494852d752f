// JSON columns (TEXT holding JSON): read through the zod schema of what they hold, so the schema is the one source of
// their type instead of a cast at every read.
import { z } from 'zod'

/**
 * The value a JSON column holds, typed by its schema. Not validated again: taskd alone writes these columns, from
 * values of that schema (parsed at the API's edge), so a check on every read would only cost time.
 */
export const fromJsonColumn = <S extends z.ZodType>(_schema: S, text: string): z.output<S> => JSON.parse(text) as z.output<S>

/** Shapes several tables' columns share: event selectors, header maps, query and payload objects. */
export const StringList = z.array(z.string())
export const StringMap = z.record(z.string(), z.string())
export const JsonObject = z.record(z.string(), z.unknown())
