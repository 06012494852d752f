// zod building blocks every family uses: the error shape, ids, query booleans, dates, names and user references.
import { z } from 'zod'

export const ErrorSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.string(),
      message: z.string(),
      details: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'Error' })

export const idParam = z.object({ id: z.string().min(1) })
export const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true')
export { dateOrDateTime, name } from './fields.js'

/**
 * A named (`$ref`) schema or null. `X.nullable()` of a named schema is documented as the bare `$ref` by
 * zod-to-openapi, which would tell clients the value is never null.
 */
export const orNull = <S extends z.ZodType>(schema: S) => z.union([schema, z.null()])
/** How one record points at a user everywhere (created_by, owner, author): `{ id, name }`. */
export const UserRef = z.strictObject({ id: z.string(), name: z.string() }).meta({ id: 'UserRef' })
export type UserRef = z.infer<typeof UserRef>

/** `{ <name>: record }`, the envelope every single record answers in. */
export const envelope = <K extends string, S extends z.ZodType>(key: K, schema: S) => z.strictObject({ [key]: schema } as Record<K, S>)
