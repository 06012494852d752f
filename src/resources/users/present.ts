// Users in API shape.
import type { Q } from '../../db/database.js'
import type { UsersTable } from '../../db/types.js'
import type { UserRef } from '../../http/schemas.js'
import type { UserView } from './schema.js'
import { getUsers } from './store.js'

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

/** The creators of a page of records, loaded in one query: `created_by` id → `{ id, name }`, or null for none. */
export async function creatorsOf(q: Q, rows: readonly { created_by: string | null }[]): Promise<(id: string | null) => UserRef | null> {
  const users = new Map(
    (
      await getUsers(
        q,
        rows.flatMap((r) => (r.created_by ? [r.created_by] : [])),
      )
    ).map((u) => [u.id, u]),
  )
  return (id) => (id ? userRefOf(users, id) : null)
}
