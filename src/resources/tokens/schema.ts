// Personal access tokens: the record and the create body.
import { z } from 'zod'
import { Permission } from '../../access/roles.js'
import { UserRef } from '../../http/schemas.js'

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

export { CreateTokenBody, type CreateTokenInput } from './body.js'
