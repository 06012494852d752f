// Tags: board-scoped labels.
import { z } from 'zod'
import { name } from '../../http/schemas.js'

export const TagSchema = z
  .strictObject({
    id: z.string(),
    board: z.string(),
    name: z.string(),
    color: z.string().nullable(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Tag' })
export type TagView = z.infer<typeof TagSchema>

const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'Must be a hex color like #ff8800.')
  .nullable()
export const CreateTagBody = z.strictObject({ board: z.string().min(1), name, color: color.optional() }).meta({ id: 'CreateTagBody' })
export type CreateTagInput = z.infer<typeof CreateTagBody>
export const UpdateTagBody = z.strictObject({ name: name.optional(), color: color.optional() }).meta({ id: 'UpdateTagBody' })
export type UpdateTagInput = z.infer<typeof UpdateTagBody>
