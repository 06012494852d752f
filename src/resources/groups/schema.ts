// Groups and teams of users, workspace-wide.
import { z } from 'zod'
import { name } from '../../http/schemas.js'

export const GroupKind = z.enum(['group', 'team']).meta({ description: 'A team is a group that works together (Linear, Jira); both work alike here.' })

export const GroupSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    kind: GroupKind,
    members: z.array(z.string()).meta({ description: 'User ids.' }),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Group' })
export type GroupView = z.infer<typeof GroupSchema>

const members = z.array(z.string().min(1)).max(1000).meta({ description: 'User ids (the whole set: a PATCH replaces it).' })

export const CreateGroupBody = z
  .strictObject({
    name: name.meta({ description: 'Unique in the workspace, whatever the case.' }),
    kind: GroupKind.optional().meta({ description: '`group` unless given.' }),
    members: members.optional(),
  })
  .meta({ id: 'CreateGroupBody', examples: [{ name: 'Platform', kind: 'team', members: ['u_123', 'u_456'] }] })
export type CreateGroupInput = z.infer<typeof CreateGroupBody>

export const UpdateGroupBody = z
  .strictObject({ name: name.optional(), kind: GroupKind.optional(), members: members.optional() })
  .meta({ id: 'UpdateGroupBody', examples: [{ members: ['u_123'] }] })
export type UpdateGroupInput = z.infer<typeof UpdateGroupBody>
