// User, workspace and team queries.
import type { Sql } from '../db/sql.js'
import { qb } from '../db/sql.js'
import type { UsersTable } from '../db/types.js'

export const getUser = (sql: Sql, id: string) => sql.first(qb.selectFrom('users').selectAll().where('id', '=', id))
export const getUserByEmail = (sql: Sql, email: string) => sql.first(qb.selectFrom('users').selectAll().where('email', '=', email))
export const getUsers = (sql: Sql, ids: readonly string[]): UsersTable[] =>
  ids.length === 0 ? [] : sql.all(qb.selectFrom('users').selectAll().where('id', 'in', [...new Set(ids)]))
export const insertUser = (sql: Sql, row: UsersTable) => sql.run(qb.insertInto('users').values(row))
export const updateUserRow = (sql: Sql, id: string, set: Partial<UsersTable>) => sql.run(qb.updateTable('users').set(set).where('id', '=', id))
export const countUsers = (sql: Sql) => sql.first(qb.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')))!.n
export const countOwners = (sql: Sql) =>
  sql.first(qb.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('role', '=', 'owner'))!.n

export const getWorkspace = (sql: Sql) => sql.first(qb.selectFrom('workspace').selectAll())
export const insertWorkspace = (sql: Sql, row: { id: string; name: string; created_at: string }) => sql.run(qb.insertInto('workspace').values(row))


export const usersQuery = () => qb.selectFrom('users')

/** Every record a workspace export carries; token hashes, webhooks and their secrets stay out. */
export function exportRows(sql: Sql) {
  const all = <T extends 'workspace' | 'users' | 'teams' | 'team_members' | 'boards' | 'board_members' | 'lists' | 'cards' | 'card_assignees' | 'card_watchers' | 'tags' | 'card_tags'>(t: T) =>
    sql.all(qb.selectFrom(t).selectAll())
  return {
    workspace: all('workspace'), users: all('users'), teams: all('teams'), team_members: all('team_members'), boards: all('boards'),
    board_members: all('board_members'), lists: all('lists'), cards: all('cards'), card_assignees: all('card_assignees'),
    card_watchers: all('card_watchers'), tags: all('tags'), card_tags: all('card_tags'),
  }
}
