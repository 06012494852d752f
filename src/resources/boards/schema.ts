// Boards: the record, bodies, and membership bodies.
import { z } from 'zod'
import { name, UserRef } from '../../http/schemas.js'

export const BoardSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    key_prefix: z.string(),
    created_by: UserRef.nullable(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Board' })
export type BoardView = z.infer<typeof BoardSchema>

const keyPrefix = z
  .string()
  .regex(/^[A-Z][A-Z0-9]{0,9}$/, 'Must be 1 to 10 capital letters or digits, starting with a letter.')
  .meta({
    description:
      'Card keys are <prefix>-<n>. Unique in the workspace for good: a prefix another board has (or had, also a deleted one) is a 422; a board may go back to one of its own. ' +
      'On create without one, it is derived from the name (MAR, MAR2, ...). After a change, the old keys still find their cards in filters (key = "OLD-3").',
  })
const description = z.string().max(20000)

export const CreateBoardBody = z
  .strictObject({
    name,
    key_prefix: keyPrefix.optional(),
    description: description.optional(),
    lists: z.array(name).min(1).max(50).optional(),
  })
  .meta({ id: 'CreateBoardBody' })
export type CreateBoardInput = z.infer<typeof CreateBoardBody>
export const UpdateBoardBody = z
  .strictObject({ name: name.optional(), key_prefix: keyPrefix.optional(), description: description.optional() })
  .meta({ id: 'UpdateBoardBody' })
export type UpdateBoardInput = z.infer<typeof UpdateBoardBody>
export const CloneBoardBody = z.strictObject({ name: name.optional() }).meta({ id: 'CloneBoardBody' })
export const AddMemberBody = z.strictObject({ user: z.string().min(1) }).meta({ id: 'AddBoardMemberBody' })
export const memberParams = z.object({ id: z.string().min(1), user: z.string().min(1) })
