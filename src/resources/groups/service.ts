// Groups and teams of users, workspace-wide: owners and admins manage them, every member reads them. Names are unique
// in the workspace, case-insensitively. The cards list's `team` parameter and filter read their members.
import { type Actor, creatorId, isAdmin } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { UserGroupsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, forbidden, invalidField, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { userView } from '../users/present.js'
import { getUsers } from '../users/published.js'
import { groupEventData, groupViews } from './present.js'
import { GROUP_LIST } from './query.js'
import type { CreateGroupInput, UpdateGroupInput } from './schema.js'
import { deleteGroupRow, getGroup, getGroupByName, groupsQuery, insertGroup, setGroupMembers, updateGroupRow } from './store.js'

const clash = (name: string) => conflict(`The workspace already has a group named "${name}".`)

const mayManage = (actor: Actor) => {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins manage groups and teams.')
}

const found = async (q: Q, id: string): Promise<UserGroupsTable> => {
  const group = await getGroup(q, id)
  if (!group) throw notFound('group')
  return group
}

/** The members named, once each; 422 naming `members` when one is no user. */
async function checkMembers(q: Q, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)]
  if ((await getUsers(q, unique)).length !== unique.length) throw invalidField('members', 'Every entry must be an existing user id.')
  return unique.sort()
}

export const getGroupFor = async (deps: Deps, _actor: Actor, id: string) => (await groupViews(deps.db.q, [await found(deps.db.q, id)]))[0]

/** Every group of the workspace; `expand=members` inlines the member users. */
export function listGroups(deps: Deps, _actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, groupsQuery(q), GROUP_LIST, params, async (rows: UserGroupsTable[], expand) => {
    const views = await groupViews(q, rows)
    if (!expand.has('members')) return views
    const users = new Map((await getUsers(q, [...new Set(views.flatMap((v) => v.members))])).map((u) => [u.id, userView(u)]))
    return views.map((v) => ({ ...v, expand: { members: v.members.flatMap((id) => users.get(id) ?? []) } }))
  })
}

export function createGroup(deps: Deps, actor: Actor, input: CreateGroupInput) {
  return deps.db.tx(async (tx) => {
    mayManage(actor)
    if (await getGroupByName(tx.q, input.name)) throw clash(input.name)
    const members = await checkMembers(tx.q, input.members ?? [])
    const at = isoAt(deps.clock.now())
    const row: UserGroupsTable = { id: newId(), name: input.name, kind: input.kind ?? 'group', created_by: creatorId(actor), created_at: at, updated_at: at }
    await insertGroup(tx.q, row)
    await setGroupMembers(tx.q, row.id, members)
    const view = (await groupViews(tx.q, [row]))[0]
    await emitEvent(deps, tx, { name: 'group.created', boardId: null, data: groupEventData(view), actor })
    return view
  })
}

export function updateGroup(deps: Deps, actor: Actor, id: string, input: UpdateGroupInput) {
  return deps.db.tx(async (tx) => {
    mayManage(actor)
    await found(tx.q, id)
    if (input.name !== undefined) {
      const other = await getGroupByName(tx.q, input.name)
      if (other && other.id !== id) throw clash(input.name)
    }
    if (input.members !== undefined) await setGroupMembers(tx.q, id, await checkMembers(tx.q, input.members))
    const set: Partial<UserGroupsTable> = {}
    if (input.name !== undefined) set.name = input.name
    if (input.kind !== undefined) set.kind = input.kind
    await updateGroupRow(tx.q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    const view = (await groupViews(tx.q, [(await getGroup(tx.q, id))!]))[0]
    await emitEvent(deps, tx, { name: 'group.updated', boardId: null, data: groupEventData(view), actor })
    return view
  })
}

export function deleteGroup(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    mayManage(actor)
    const view = (await groupViews(tx.q, [await found(tx.q, id)]))[0]
    if (!(await deleteGroupRow(tx.q, id))) throw notFound('group')
    await emitEvent(deps, tx, { name: 'group.deleted', boardId: null, data: groupEventData(view), actor })
  })
}
