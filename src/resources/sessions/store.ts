// Sign-in queries: passwords, sessions (looked up by the hash of the cookie's value, with their user) and login links.
// The users table is read here as tokens/store.ts reads it: a session or a sign-in needs its user in the same query.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely'
import type { Q } from '../../db/database.js'
import type { DB, LoginLinksTable, SessionsTable, UsersTable } from '../../db/types.js'

const USER_COLUMNS = [
  'users.id as u_id',
  'users.email as u_email',
  'users.name as u_name',
  'users.role as u_role',
  'users.kind as u_kind',
  'users.created_at as u_created_at',
] as const
type UserColumns = { u_id: string; u_email: string; u_name: string; u_role: UsersTable['role']; u_kind: UsersTable['kind']; u_created_at: string }
const userOf = (r: UserColumns): UsersTable => ({ id: r.u_id, email: r.u_email, name: r.u_name, role: r.u_role, kind: r.u_kind, created_at: r.u_created_at })

/** A user by email (ASCII case ignored, through the lower(email) index) with the hash of their password, if any. */
export async function userWithPassword(q: Q, email: string): Promise<{ user: UsersTable; hash: string | null } | undefined> {
  const row = await q
    .selectFrom('users')
    .leftJoin('user_passwords', 'user_passwords.user_id', 'users.id')
    .select([...USER_COLUMNS, 'user_passwords.hash'])
    .where((eb) => eb(eb.fn('lower', ['users.email']), '=', eb.fn('lower', [eb.val(email)])))
    .executeTakeFirst()
  return row && { user: userOf(row), hash: row.hash }
}

export const getUserRow = (q: Q, id: string) => q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()

export const passwordHashOf = async (q: Q, userId: string): Promise<string | undefined> =>
  (await q.selectFrom('user_passwords').select('hash').where('user_id', '=', userId).executeTakeFirst())?.hash

/** Sets a user's password hash (the first, or in place of the last). */
export const writePassword = (q: Q, userId: string, hash: string, at: string) =>
  q
    .insertInto('user_passwords')
    .values({ user_id: userId, hash, updated_at: at })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ hash, updated_at: at }))
    .execute()

export const insertSession = (q: Q, row: SessionsTable) => q.insertInto('sessions').values(row).execute()

/** A session by the hash of its cookie value, with its user. */
export async function sessionByHash(q: Q, hash: string): Promise<{ session: SessionsTable; user: UsersTable } | undefined> {
  const row = await q
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .selectAll('sessions')
    .select(USER_COLUMNS)
    .where('sessions.hash', '=', hash)
    .executeTakeFirst()
  if (!row) return undefined
  const { u_id, u_email, u_name, u_role, u_kind, u_created_at, ...session } = row
  return { session, user: userOf({ u_id, u_email, u_name, u_role, u_kind, u_created_at }) }
}

export const getSession = (q: Q, id: string) => q.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst()

/** A use of a session: its last use, and its expiry moved on. */
export const touchSession = (q: Q, id: string, lastUsed: string, expires: string) =>
  q.updateTable('sessions').set({ last_used_at: lastUsed, expires_at: expires }).where('id', '=', id).execute()

/** Deletes a session; false when it was gone already. */
export const deleteSession = async (q: Q, id: string): Promise<boolean> =>
  (await q.deleteFrom('sessions').where('id', '=', id).returning('id').execute()).length > 0
/** Every session of a user but `except` (the one a password change came through). */
export const deleteSessionsOf = async (q: Q, userId: string, except?: string): Promise<string[]> => {
  let query = q.deleteFrom('sessions').where('user_id', '=', userId)
  if (except) query = query.where('id', '!=', except)
  return (await query.returning('id').execute()).map((r) => r.id)
}
/** A user's sessions that have ended (tidied at each sign-in). */
export const deleteEndedSessionsOf = (q: Q, userId: string, now: string) =>
  q.deleteFrom('sessions').where('user_id', '=', userId).where('expires_at', '<=', now).execute()

/** Base query of the session list: a user's sessions that have not ended. */
export const sessionsQuery = (q: Q, userId: string, now: string) =>
  q
    .selectFrom('sessions')
    .where((eb: ExpressionBuilder<DB, 'sessions'>): Expression<SqlBool> => eb.and([eb('sessions.user_id', '=', userId), eb('sessions.expires_at', '>', now)]))

export const insertLoginLink = (q: Q, row: LoginLinksTable) => q.insertInto('login_links').values(row).execute()

/** Uses a login link, once: the user it was for, or undefined when it is unknown, used or expired. */
export const useLoginLink = async (q: Q, hash: string, now: string): Promise<{ id: string; user_id: string } | undefined> =>
  q
    .updateTable('login_links')
    .set({ used_at: now })
    .where('hash', '=', hash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'user_id'])
    .executeTakeFirst()

/** Links used or expired (tidied whenever one is made). */
export const deleteSpentLinks = (q: Q, now: string) =>
  q
    .deleteFrom('login_links')
    .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', now)]))
    .execute()
/** A user's unused links (a password change ends them). */
export const deleteLinksOf = (q: Q, userId: string) => q.deleteFrom('login_links').where('user_id', '=', userId).where('used_at', 'is', null).execute()
