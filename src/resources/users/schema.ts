// Users: the record, bodies and list parameters.
import { z } from 'zod'
import { Role, UserKind } from '../../access/roles.js'
import { name } from '../../http/schemas.js'

export const UserSchema = z
  .strictObject({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: Role,
    kind: UserKind,
    created: z.string(),
    created_at: z.string().meta({ description: 'Deprecated alias of `created`, kept until v2.', deprecated: true }),
  })
  .meta({ id: 'User' })
export type UserView = z.infer<typeof UserSchema>

const email = z.string().email().max(320)
export const CreateUserBody = z.strictObject({ email, name, role: Role.default('member'), kind: UserKind.default('human') }).meta({ id: 'CreateUserBody' })
export type CreateUserInput = z.infer<typeof CreateUserBody>
export const UpdateUserBody = z.strictObject({ email: email.optional(), name: name.optional(), role: Role.optional() }).meta({ id: 'UpdateUserBody' })
export type UpdateUserInput = z.infer<typeof UpdateUserBody>
