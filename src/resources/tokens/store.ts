// Token queries: lookup by hash (with its user), the throttled last-use mark, CRUD and the list's base query.
import type { Sql } from '../../db/sql.js'
import { fixedQuery, qb } from '../../db/sql.js'
import type { TokensTable, UsersTable } from '../../db/types.js'

const byHash = fixedQuery((hash: string) =>
  qb
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

export function findTokenByHash(sql: Sql, hash: string): { token: TokensTable; user: UsersTable } | undefined {
  const row = sql.first(byHash(hash))
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

const touch = fixedQuery((id: string, at: string) => qb.updateTable('tokens').set({ last_used_at: at }).where('id', '=', id))
export function touchToken(sql: Sql, id: string, at: string): void {
  sql.run(touch(id, at))
}

export function insertToken(sql: Sql, row: TokensTable): void {
  sql.run(qb.insertInto('tokens').values(row))
}

export function getToken(sql: Sql, id: string): TokensTable | undefined {
  return sql.first(qb.selectFrom('tokens').selectAll().where('id', '=', id))
}

export function deleteToken(sql: Sql, id: string): void {
  sql.run(qb.deleteFrom('tokens').where('id', '=', id))
}

/** Base query of the token list: one owner's tokens, or every token. */
export const tokensQuery = (ownerId?: string) => (ownerId ? qb.selectFrom('tokens').where('tokens.user_id', '=', ownerId) : qb.selectFrom('tokens'))

/** Tokens with their owners' emails, oldest first, for the CLI's table. */
export const tokensWithOwners = (sql: Sql, email?: string) => {
  let q = qb
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select(['tokens.id', 'tokens.name', 'tokens.permission', 'tokens.prefix', 'tokens.expires_at', 'tokens.last_used_at', 'users.email'])
    .orderBy('tokens.created_at')
  if (email) q = q.where('users.email', '=', email)
  return sql.all(q)
}
