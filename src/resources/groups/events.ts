// Events of groups and teams (workspace-wide: no board), with the payload their `data` carries.
import { z } from 'zod'
import { ACTOR, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const groupData = z.object({
  id: str('Group id'),
  name: str('Group name'),
  kind: described(z.string(), 'group or team'),
  members: described(z.array(z.string()), 'User ids of its members'),
  actor: ACTOR,
})

export const GROUP_EVENTS = defineEvents({
  'group.created': { summary: 'A group or team was created.', data: groupData },
  'group.updated': { summary: 'A group or team was renamed or its members changed.', data: groupData },
  'group.deleted': { summary: 'A group or team was deleted.', data: groupData },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof GROUP_EVENTS> {}
}
