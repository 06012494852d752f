// The field schemas a body shares with the command line's input checks (names, dates): zod alone, so that a command
// checking its flags with the API's own rules loads these and not the whole of ./schemas.ts (re-exported there).
import { z } from 'zod'

/** Stored as ISO text in UTC, whose text order is time order only for years 0000 to 9999. */
const inStorableRange = (v: string) => {
  const y = new Date(v.length === 10 ? `${v}T00:00:00Z` : v).getUTCFullYear()
  return y >= 0 && y <= 9999
}
export const dateOrDateTime = z
  .union([z.string().date(), z.string().datetime({ offset: true })])
  .refine(inStorableRange, 'Must fall between the years 0000 and 9999 in UTC.')
  .meta({ description: '`YYYY-MM-DD` or an ISO 8601 date-time.' })
export const name = z.string().trim().min(1).max(200)
