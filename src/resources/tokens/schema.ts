// Personal access tokens: the record and the create body.
import { z } from 'zod'
import { Permission } from '../../access/roles.js'
import { dateOrDateTime, name, UserRef } from '../../http/schemas.js'

export const TokenSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    permission: Permission,
    prefix: z.string().meta({ description: 'The first 7 characters of the value' }),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    created: z.string(),
    created_at: z.string().meta({ description: 'Deprecated alias of `created`, kept until v2.', deprecated: true }),
    owner: UserRef,
  })
  .meta({ id: 'Token' })
export type TokenView = z.infer<typeof TokenSchema>

export const CreateTokenBody = z
  .strictObject({
    name,
    permission: Permission.default('write'),
    expires_at: dateOrDateTime.nullable().optional(),
    user: z.string().min(1).optional().meta({ description: "An agent's id: a token for that agent (its owner, owners and admins). Default: yourself." }),
  })
  .meta({ id: 'CreateTokenBody' })
/** What the create route and `taskd token create` pass. */
export type CreateTokenInput = z.infer<typeof CreateTokenBody>
