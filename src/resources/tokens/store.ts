// Token queries: lookup by hash (with its user), the throttled last-use mark, CRUD and the list's base query.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely'
import type { Q } from '../../db/database.js'
import { firstOf, fixedQuery } from '../../db/sql.js'
import type { DB, TokensTable, UsersTable } from '../../db/types.js'

const byHash = fixedQuery((q: Q, hash: string) =>
  q
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select([
      'tokens.id as t_id',
      'tokens.user_id',
      'tokens.name as t_name',
      'tokens.permission',
      'tokens.hash',
      'tokens.prefix',
      'tokens.expires_at',
      'tokens.last_used_at',
      'tokens.created_at as t_created_at',
      'users.id as u_id',
      'users.email',
      'users.name as u_name',
      'users.role',
      'users.kind',
      'users.created_at as u_created_at',
    ])
    .where('tokens.hash', '=', hash),
)

/** A token as authentication sees it (without its rate window). */
export type Token = Omit<TokensTable, 'rate_window_start' | 'rate_count'>

export async function findTokenByHash(q: Q, hash: string): Promise<{ token: Token; user: UsersTable } | undefined> {
  const row = await firstOf(q, byHash(q, hash))
  if (!row) return undefined
  return {
    token: {
      id: row.t_id,
      user_id: row.user_id,
      name: row.t_name,
      permission: row.permission,
      hash: row.hash,
      prefix: row.prefix,
      expires_at: row.expires_at,
      last_used_at: row.last_used_at,
      created_at: row.t_created_at,
    },
    user: { id: row.u_id, email: row.email, name: row.u_name, role: row.role, kind: row.kind, created_at: row.u_created_at },
  }
}

const touch = fixedQuery((q: Q, id: string, at: string) => q.updateTable('tokens').set({ last_used_at: at }).where('id', '=', id))
export const touchToken = (q: Q, id: string, at: string) => q.executeQuery(touch(q, id, at))

const countRequest = fixedQuery((q: Q, id: string, now: number, windowStart: number) =>
  q
    .updateTable('tokens')
    .set((eb) => {
      // Still in the window that began after windowStart: one more; else a new window from now. (A window a little in
      // the future is current too: another request, or process, may have read the clock a moment later and updated first.)
      const current = eb('rate_window_start', '>', windowStart)
      return {
        rate_count: eb
          .case()
          .when(current)
          .then(eb('rate_count', '+', 1))
          .else(1)
          .end(),
        rate_window_start: eb.case().when(current).then(eb.ref('rate_window_start')).else(now).end(),
      }
    })
    .where('id', '=', id)
    .returning(['rate_window_start', 'rate_count']),
)

/**
 * Counts one request of a token in its current window of `windowMs` (a new window starts when the last one has passed),
 * in one statement on the token's row, so every process counts against the same budget. Returns the window.
 */
export const countTokenRequest = async (q: Q, id: string, now: number, windowMs: number) =>
  (await firstOf(q, countRequest(q, id, now, now - windowMs))) ?? { rate_window_start: now, rate_count: 0 }

/** A user who is no longer an owner or admin keeps no Full Access token: those become write tokens. */
export const downgradeFullTokens = (q: Q, userId: string) =>
  q.updateTable('tokens').set({ permission: 'write' }).where('user_id', '=', userId).where('permission', '=', 'full').execute()

export const insertToken = (q: Q, row: TokensTable) => q.insertInto('tokens').values(row).execute()
export const getToken = (q: Q, id: string) => q.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst()
export const deleteToken = (q: Q, id: string) => q.deleteFrom('tokens').where('id', '=', id).execute()

/** Base query of the token list: the tokens whose holders `scope` (decided by access) takes, or every token. */
export const tokensQuery = (q: Q, scope?: (eb: ExpressionBuilder<DB, 'tokens'>) => Expression<SqlBool>) =>
  scope ? q.selectFrom('tokens').where(scope) : q.selectFrom('tokens')

/** Tokens with their owners' emails, oldest first, for the CLI's table. */
export const tokensWithOwners = (q: Q, email?: string) => {
  let query = q
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select(['tokens.id', 'tokens.name', 'tokens.permission', 'tokens.prefix', 'tokens.expires_at', 'tokens.last_used_at', 'users.email'])
    .orderBy('tokens.created_at')
  if (email) query = query.where((eb) => eb(eb.fn('lower', ['users.email']), '=', eb.fn('lower', [eb.val(email)])))
  return query.execute()
}

/** The email of an owner holding a token, while no token has ever been used (a fresh workspace's setup token unused). */
export async function ownerBeforeFirstUse(q: Q): Promise<string | undefined> {
  const used = await q.selectFrom('tokens').select('id').where('last_used_at', 'is not', null).limit(1).executeTakeFirst()
  if (used) return undefined
  const holder = await q
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select('users.email')
    .where('users.role', '=', 'owner')
    .orderBy('tokens.created_at')
    .orderBy('tokens.id')
    .limit(1)
    .executeTakeFirst()
  return holder?.email
}
