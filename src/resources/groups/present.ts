// Groups in API shape (their members loaded for a whole page at once), and the `data` of their events.
import type { Q } from '../../db/database.js'
import type { UserGroupsTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import type { GroupView } from './schema.js'
import { membersOfGroups } from './store.js'

export const groupView = (g: UserGroupsTable, members: string[]): GroupView => ({
  id: g.id,
  name: g.name,
  kind: g.kind,
  members,
  created: g.created_at,
  updated: g.updated_at,
})

export async function groupViews(q: Q, rows: readonly UserGroupsTable[]): Promise<GroupView[]> {
  const members = await membersOfGroups(
    q,
    rows.map((r) => r.id),
  )
  return rows.map((r) => groupView(r, members.get(r.id) ?? []))
}

export const groupEventData = (g: GroupView): EventData<'group.created'> => ({ id: g.id, name: g.name, kind: g.kind, members: g.members })
