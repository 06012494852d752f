// Workspace roles, token permissions and who counts as an admin: the one definition of each.
import { z } from 'zod'
import type { UsersTable } from '../db/types.js'

export const Role = z.enum(['owner', 'admin', 'member'])
export type Role = z.infer<typeof Role>
export const UserKind = z.enum(['human', 'agent'])
export type UserKind = z.infer<typeof UserKind>
export const Permission = z.enum(['read', 'write', 'full'])
export type Permission = z.infer<typeof Permission>

// The enums above and the CHECK constraints of schema.sql must agree; the generated row types make a drift a compile error.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const schemaAgrees: [Same<Role, UsersTable['role']>, Same<UserKind, UsersTable['kind']>] = [true, true]
void schemaAgrees

/** The caller of a request: a user acting through one of their tokens. */
export interface Actor {
  user: UsersTable
  tokenId: string
  permission: Permission
}

export const PERMISSION_RANK: Record<Permission, number> = { read: 0, write: 1, full: 2 }

/** Owners and admins manage the workspace and see every board. */
export const ADMIN_ROLES: readonly Role[] = ['owner', 'admin']
export const isAdminRole = (role: Role): boolean => ADMIN_ROLES.includes(role)
export const isAdmin = (actor: Actor): boolean => isAdminRole(actor.user.role)
