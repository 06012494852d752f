// Users and the workspace: creation, role changes, the first owner.
import type { Sql } from '../db/sql.js'
import type { UsersTable } from '../db/types.js'
import { isoAt } from '../clock.js'
import { newId } from '../ids.js'
import { conflict, forbidden, notFound, unprocessable } from '../http/errors.js'
import { countOwners, countUsers, getUser, getUserByEmail, getWorkspace, insertUser, insertWorkspace, updateUserRow } from '../store/users.js'
import { type Actor, type Deps, isAdmin } from './context.js'

export type Role = UsersTable['role']

export interface UserView { id: string; email: string; name: string; role: Role; kind: 'human' | 'agent'; created_at: string }

export const userView = (u: UsersTable): UserView => ({ id: u.id, email: u.email, name: u.name, role: u.role, kind: u.kind, created_at: u.created_at })

/** Creates the workspace row when the database is new. */
export function ensureWorkspace(sql: Sql, now: number): void {
  if (!getWorkspace(sql)) insertWorkspace(sql, { id: newId(), name: 'Workspace', created_at: isoAt(now) })
}

export const isWorkspaceEmpty = (sql: Sql): boolean => countUsers(sql) === 0

export function insertNewUser(sql: Sql, now: number, input: { email: string; name: string; role: Role; kind?: 'human' | 'agent' }): UsersTable {
  if (getUserByEmail(sql, input.email)) throw conflict(`A user with email ${input.email} already exists.`)
  const row: UsersTable = { id: newId(), email: input.email, name: input.name, role: input.role, kind: input.kind ?? 'human', created_at: isoAt(now) }
  insertUser(sql, row)
  return row
}

function assertCanManageRoles(actor: Actor, targetRole: Role | undefined, newRole: Role | undefined): void {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins can manage users.')
  if (actor.user.role !== 'owner' && (newRole === 'owner' || targetRole === 'owner')) {
    throw forbidden('Only owners can grant or change the owner role.')
  }
}

export function createUser(deps: Deps, actor: Actor, input: { email: string; name: string; role: Role; kind?: 'human' | 'agent' }): UserView {
  assertCanManageRoles(actor, undefined, input.role)
  return userView(deps.sql.tx(() => insertNewUser(deps.sql, deps.clock.now(), input)))
}

export function updateUser(deps: Deps, actor: Actor, id: string, input: { name?: string; email?: string; role?: Role }): UserView {
  return deps.sql.tx(() => {
    const user = getUser(deps.sql, id)
    if (!user) throw notFound('user')
    assertCanManageRoles(actor, user.role, input.role)
    if (user.role === 'owner' && input.role && input.role !== 'owner' && countOwners(deps.sql) === 1) {
      throw conflict('The workspace must keep at least one owner.')
    }
    if (input.email && input.email.toLowerCase() !== user.email.toLowerCase() && getUserByEmail(deps.sql, input.email)) {
      throw unprocessable('The request body is not valid.', [{ path: 'email', message: 'This email is already used by another user.' }])
    }
    const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
    if (Object.keys(set).length) updateUserRow(deps.sql, id, set)
    return userView(getUser(deps.sql, id)!)
  })
}
