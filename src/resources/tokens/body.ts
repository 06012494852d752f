// The create body of a personal access token, apart from the record's schema (./schema.ts re-exports it): `taskd token
// create` checks its flags with it, and loads only zod and the shared field schemas (src/http/fields.ts) for that.
import { z } from 'zod'
import { Permission } from '../../access/roles.js'
import { dateOrDateTime, name } from '../../http/fields.js'

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
