// Group queries: user_groups and their members in user_group_members.
import type { Q } from '../../db/database.js'
import type { UserGroupsTable } from '../../db/types.js'

export const getGroup = (q: Q, id: string) => q.selectFrom('user_groups').selectAll().where('id', '=', id).executeTakeFirst()
export const getGroupByName = (q: Q, name: string) =>
  q
    .selectFrom('user_groups')
    .selectAll()
    .where((eb) => eb(eb.fn('taskd_fold', ['name']), '=', eb.fn('taskd_fold', [eb.val(name)])))
    .executeTakeFirst()
export const insertGroup = (q: Q, row: UserGroupsTable) => q.insertInto('user_groups').values(row).execute()
export const updateGroupRow = (q: Q, id: string, set: Partial<UserGroupsTable>) => q.updateTable('user_groups').set(set).where('id', '=', id).execute()
export const deleteGroupRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('user_groups').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

/** Replaces a group's members. */
export async function setGroupMembers(q: Q, groupId: string, userIds: readonly string[]): Promise<void> {
  await q.deleteFrom('user_group_members').where('group_id', '=', groupId).execute()
  if (userIds.length)
    await q
      .insertInto('user_group_members')
      .values(userIds.map((user_id) => ({ group_id: groupId, user_id })))
      .execute()
}

/** The member ids of each group, in id order. */
export async function membersOfGroups(q: Q, ids: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(ids.map((id) => [id, []]))
  if (ids.length === 0) return out
  const rows = await q
    .selectFrom('user_group_members')
    .select(['group_id', 'user_id'])
    .where('group_id', 'in', [...ids])
    .orderBy('user_id')
    .execute()
  for (const r of rows) out.get(r.group_id)?.push(r.user_id)
  return out
}

export const groupsQuery = (q: Q) => q.selectFrom('user_groups')
