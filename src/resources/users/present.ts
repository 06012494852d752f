// Users in API shape.
import type { Q } from '../../db/database.js'
import { AgentPowers } from '../../access/roles.js'
import { isAdminRole } from '../../access/roles.js'
import type { Viewer } from '../../access/visibility.js'
import type { UsersTable } from '../../db/types.js'
import type { UserRef } from '../../http/schemas.js'
import type { UserView } from './schema.js'
import { agentProfilesOf, getUsers } from './store.js'
import { fromJsonColumn } from '../../db/json.js'

export const userView = (u: UsersTable): UserView => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  kind: u.kind,
  created: u.created_at,
  created_at: u.created_at,
})

/**
 * Users as the users routes show them: an agent with its profile (its wake URL and signing secret only to owners,
 * admins, the agent itself and its owner), in two queries for a page.
 */
export async function userViews(q: Q, rows: readonly UsersTable[], viewer: Viewer): Promise<UserView[]> {
  const profiles = new Map(
    (
      await agentProfilesOf(
        q,
        rows.filter((r) => r.kind === 'agent').map((r) => r.id),
      )
    ).map((p) => [p.user_id, p]),
  )
  const owners = await userRefsOf(
    q,
    [...profiles.values()].map((p) => p.owner_id),
  )
  return rows.map((r) => {
    const p = profiles.get(r.id)
    if (!p) return userView(r)
    const insider = isAdminRole(viewer.role) || viewer.id === r.id || viewer.id === p.owner_id
    return {
      ...userView(r),
      agent: {
        owner: owners(p.owner_id),
        wake_url: insider ? p.wake_url : null,
        signing_secret: insider ? p.signing_secret_id : null,
        powers: fromJsonColumn(AgentPowers, p.powers),
      },
    }
  })
}

/** `{ id, name }` of a user id, from users already loaded; a user deleted since shows an empty name. */
export const userRefOf = (users: ReadonlyMap<string, { name: string }>, id: string): UserRef => ({ id, name: users.get(id)?.name ?? '' })

/** `{ id, name }` of user ids (null stays null); the function is typed so that a required id gives a UserRef. */
export interface UserRefs {
  (id: string): UserRef
  (id: string | null): UserRef | null
}

/** The users a page of records names (creators, owners, reviewers, ...), loaded in one query. */
export async function userRefsOf(q: Q, ids: readonly (string | null)[]): Promise<UserRefs> {
  const users = new Map((await getUsers(q, [...new Set(ids.filter((id) => id !== null))])).map((u) => [u.id, u]))
  return ((id: string | null) => (id ? userRefOf(users, id) : null)) as UserRefs
}

/** The creators of a page of records: `created_by` id → `{ id, name }`, or null for none. */
export const creatorsOf = (q: Q, rows: readonly { created_by: string | null }[]): Promise<UserRefs> =>
  userRefsOf(
    q,
    rows.map((r) => r.created_by),
  )
