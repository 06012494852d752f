// Users and the workspace: the caller, the user list, creation, role changes, the first owner.
import { type Actor, isAdmin, isAdminRole, type Role } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, forbidden, notFound, unprocessable } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { boardViews } from '../boards/present.js'
import { boardsSharedWith } from '../boards/store.js'
import { downgradeFullTokens } from '../tokens/store.js'
import { userView } from './present.js'
import { USER_LIST } from './query.js'
import type { CreateUserInput, UpdateUserInput, UserView } from './schema.js'
import { countOwners, countUsers, getUser, getUserByEmail, getWorkspace, insertUser, insertWorkspace, updateUserRow, usersQuery } from './store.js'

/** Creates the workspace row when the database is new. */
export async function ensureWorkspace(q: Q, now: number): Promise<void> {
  // One fixed id, so two processes starting at once on an empty database cannot both add one (the second insert is a no-op).
  if (!(await getWorkspace(q))) await insertWorkspace(q, { id: 'workspace', name: 'Workspace', created_at: isoAt(now) })
}

export const isWorkspaceEmpty = async (q: Q): Promise<boolean> => (await countUsers(q)) === 0

/** Inserts a user; used by the API, the CLI and first-run setup. */
export async function insertNewUser(q: Q, now: number, input: { email: string; name: string; role: Role; kind?: UsersTable['kind'] }): Promise<UsersTable> {
  if (await getUserByEmail(q, input.email)) throw conflict(`A user with email ${input.email} already exists.`)
  const row: UsersTable = { id: newId(), email: input.email, name: input.name, role: input.role, kind: input.kind ?? 'human', created_at: isoAt(now) }
  await insertUser(q, row)
  return row
}

export const getMe = (actor: Actor): UserView => userView(actor.user)

export async function getUserFor(deps: Deps, id: string): Promise<UserView> {
  const user = await getUser(deps.db.q, id)
  if (!user) throw notFound('user')
  return userView(user)
}

/** Every user of the workspace; `expand=boards` lists the boards each one shares with the caller. */
export function listUsers(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, usersQuery(q), USER_LIST, params, async (rows: UsersTable[], expand) => {
    if (!expand.has('boards')) return rows.map(userView)
    const shared = await boardsSharedWith(
      q,
      rows.map((r) => r.id),
      actor.user,
    )
    const views = new Map((await boardViews(q, shared)).map((b) => [b.id, b]))
    return rows.map((r) => ({ ...userView(r), expand: { boards: shared.filter((b) => b.user_id === r.id).map((b) => views.get(b.id)!) } }))
  })
}

function assertCanManageRoles(actor: Actor, targetRole: Role | undefined, newRole: Role | undefined): void {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins can manage users.')
  if (actor.user.role !== 'owner' && (newRole === 'owner' || targetRole === 'owner')) {
    throw forbidden('Only owners can grant or change the owner role.')
  }
}

export async function createUser(deps: Deps, actor: Actor, input: CreateUserInput): Promise<UserView> {
  assertCanManageRoles(actor, undefined, input.role)
  return userView(await deps.db.tx((tx) => insertNewUser(tx.q, deps.clock.now(), input)))
}

export function updateUser(deps: Deps, actor: Actor, id: string, input: UpdateUserInput): Promise<UserView> {
  return deps.db.tx(async ({ q }) => {
    const user = await getUser(q, id)
    if (!user) throw notFound('user')
    assertCanManageRoles(actor, user.role, input.role)
    if (user.role === 'owner' && input.role && input.role !== 'owner' && (await countOwners(q)) === 1) {
      throw conflict('The workspace must keep at least one owner.')
    }
    const clash = input.email ? await getUserByEmail(q, input.email) : undefined
    if (clash && clash.id !== id) {
      throw unprocessable('The request body is not valid.', [{ path: 'email', message: 'This email is already used by another user.' }])
    }
    const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
    if (Object.keys(set).length) await updateUserRow(q, id, set)
    // Full Access is for owners and admins only: a demotion turns the user's full tokens into write tokens.
    if (input.role && !isAdminRole(input.role)) await downgradeFullTokens(q, id)
    return userView((await getUser(q, id))!)
  })
}
