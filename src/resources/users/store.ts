// User and workspace queries.
import type { Sql } from '../../db/sql.js'
import { qb } from '../../db/sql.js'
import type { UsersTable } from '../../db/types.js'

export const getUser = (sql: Sql, id: string) => sql.first(qb.selectFrom('users').selectAll().where('id', '=', id))
export const getUserByEmail = (sql: Sql, email: string) => sql.first(qb.selectFrom('users').selectAll().where('email', '=', email))
export const getUsers = (sql: Sql, ids: readonly string[]): UsersTable[] =>
  ids.length === 0
    ? []
    : sql.all(
        qb
          .selectFrom('users')
          .selectAll()
          .where('id', 'in', [...new Set(ids)]),
      )
export const insertUser = (sql: Sql, row: UsersTable) => sql.run(qb.insertInto('users').values(row))
export const updateUserRow = (sql: Sql, id: string, set: Partial<UsersTable>) => sql.run(qb.updateTable('users').set(set).where('id', '=', id))
export const countUsers = (sql: Sql) => sql.first(qb.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')))!.n
export const countOwners = (sql: Sql) =>
  sql.first(
    qb
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role', '=', 'owner'),
  )!.n

export const getWorkspace = (sql: Sql) => sql.first(qb.selectFrom('workspace').selectAll())
export const insertWorkspace = (sql: Sql, row: { id: string; name: string; created_at: string }) => sql.run(qb.insertInto('workspace').values(row))

/** Base query of the user list. */
export const usersQuery = () => qb.selectFrom('users')
