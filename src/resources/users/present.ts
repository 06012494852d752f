// Users in API shape.
import type { UsersTable } from '../../db/types.js'
import type { UserRef } from '../../http/schemas.js'
import type { UserView } from './schema.js'

export const userView = (u: UsersTable): UserView => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  kind: u.kind,
  created: u.created_at,
  created_at: u.created_at,
})

/** `{ id, name }` of a user id, from users already loaded; a user deleted since shows an empty name. */
export const userRefOf = (users: ReadonlyMap<string, { name: string }>, id: string): UserRef => ({ id, name: users.get(id)?.name ?? '' })
