// zod schemas shared by several routers: the error shape, ids, query booleans, records.
import { z } from 'zod'

export const ErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
}).meta({ id: 'Error' })

export const idParam = z.object({ id: z.string().min(1) })
export const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true')
/** Stored as ISO text in UTC, whose text order is time order only for years 0000 to 9999. */
const inStorableRange = (v: string) => { const y = new Date(v.length === 10 ? `${v}T00:00:00Z` : v).getUTCFullYear(); return y >= 0 && y <= 9999 }
export const dateOrDateTime = z.union([z.string().date(), z.string().datetime({ offset: true })])
  .refine(inStorableRange, 'Must fall between the years 0000 and 9999 in UTC.')
  .meta({ description: '`YYYY-MM-DD` or an ISO 8601 date-time.' })
export const name = z.string().trim().min(1).max(200)

export const UserSchema = z.object({
  id: z.string(), email: z.string(), name: z.string(), role: z.enum(['owner', 'admin', 'member']),
  kind: z.enum(['human', 'agent']), created_at: z.string(),
}).meta({ id: 'User' })

export const BoardSchema = z.object({
  id: z.string(), name: z.string(), description: z.string(), key_prefix: z.string(), created_by: z.string().nullable(),
  created: z.string(), updated: z.string(),
}).meta({ id: 'Board' })

export const ListCategory = z.enum(['backlog', 'unstarted', 'started', 'completed', 'canceled'])
export const ListSchema = z.object({
  id: z.string(), board: z.string(), name: z.string(), position: z.number(), category: ListCategory, created: z.string(), updated: z.string(),
}).meta({ id: 'List' })

export const TagSchema = z.object({
  id: z.string(), board: z.string(), name: z.string(), color: z.string().nullable(), created: z.string(), updated: z.string(),
}).meta({ id: 'Tag' })
