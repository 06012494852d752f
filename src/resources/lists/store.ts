// List queries.
import { memberBoardIds } from '../../access/visibility.js'
import type { Sql } from '../../db/sql.js'
import { fixedQuery, qb } from '../../db/sql.js'
import type { ListsTable } from '../../db/types.js'

const listById = fixedQuery((id: string) => qb.selectFrom('lists').selectAll().where('id', '=', id))
export const getList = (sql: Sql, id: string) => sql.first(listById(id))
export const getLists = (sql: Sql, ids: readonly string[]): ListsTable[] =>
  ids.length === 0
    ? []
    : sql.all(
        qb
          .selectFrom('lists')
          .selectAll()
          .where('id', 'in', [...new Set(ids)]),
      )
const boardLists = fixedQuery((boardId: string) => qb.selectFrom('lists').selectAll().where('board_id', '=', boardId).orderBy('position').orderBy('created_at'))
export const listsOfBoard = (sql: Sql, boardId: string): ListsTable[] => sql.all(boardLists(boardId))
export const insertList = (sql: Sql, row: ListsTable) => sql.run(qb.insertInto('lists').values(row))
export const updateListRow = (sql: Sql, id: string, set: Partial<ListsTable>) => sql.run(qb.updateTable('lists').set(set).where('id', '=', id))
export const deleteListRow = (sql: Sql, id: string) => sql.run(qb.deleteFrom('lists').where('id', '=', id))
export const maxListPosition = (sql: Sql, boardId: string): number =>
  sql.first(
    qb
      .selectFrom('lists')
      .select((eb) => eb.fn.max('position').as('p'))
      .where('board_id', '=', boardId),
  )?.p ?? 0

/** The lists of a page of boards, in one query. */
export const listsOfBoards = (sql: Sql, ids: readonly string[]): ListsTable[] =>
  ids.length === 0
    ? []
    : sql.all(
        qb
          .selectFrom('lists')
          .selectAll()
          .where('board_id', 'in', [...ids])
          .orderBy('position'),
      )

/** Base query of the list route: the lists of the boards a user belongs to, optionally of one board. */
export function visibleListsQuery(userId: string, boardId?: string) {
  const q = qb.selectFrom('lists').where('lists.board_id', 'in', memberBoardIds(userId))
  return boardId ? q.where('lists.board_id', '=', boardId) : q
}
