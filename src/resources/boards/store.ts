// Board and membership queries.
import { memberBoardIds } from '../../access/visibility.js'
import type { Sql } from '../../db/sql.js'
import { qb } from '../../db/sql.js'
import type { BoardsTable } from '../../db/types.js'

export const getBoard = (sql: Sql, id: string) => sql.first(qb.selectFrom('boards').selectAll().where('id', '=', id))
export const getBoards = (sql: Sql, ids: readonly string[]): BoardsTable[] =>
  ids.length === 0
    ? []
    : sql.all(
        qb
          .selectFrom('boards')
          .selectAll()
          .where('id', 'in', [...new Set(ids)]),
      )
export const insertBoard = (sql: Sql, row: BoardsTable) => sql.run(qb.insertInto('boards').values(row))
export const updateBoardRow = (sql: Sql, id: string, set: Partial<BoardsTable>) => sql.run(qb.updateTable('boards').set(set).where('id', '=', id))
export const deleteBoardRow = (sql: Sql, id: string) => sql.run(qb.deleteFrom('boards').where('id', '=', id))

export const isBoardMember = (sql: Sql, boardId: string, userId: string): boolean =>
  sql.first(qb.selectFrom('board_members').select('user_id').where('board_id', '=', boardId).where('user_id', '=', userId)) !== undefined
export const addBoardMember = (sql: Sql, boardId: string, userId: string, at: string) =>
  sql.run(
    qb
      .insertInto('board_members')
      .values({ board_id: boardId, user_id: userId, created_at: at })
      .onConflict((oc) => oc.doNothing()),
  )
export const removeBoardMember = (sql: Sql, boardId: string, userId: string) =>
  sql.run(qb.deleteFrom('board_members').where('board_id', '=', boardId).where('user_id', '=', userId))
/** Base queries of the list routes (filters and paging are added on top): the boards a user belongs to, and a board's members. */
export const visibleBoardsQuery = (userId: string) => qb.selectFrom('boards').where('boards.id', 'in', memberBoardIds(userId))
export const boardMembersQuery = (boardId: string) =>
  qb.selectFrom('users').where('users.id', 'in', qb.selectFrom('board_members').select('user_id').where('board_id', '=', boardId))

/** The members of a page of boards, in one query. */
export const membersOfBoards = (sql: Sql, ids: readonly string[]) =>
  ids.length === 0
    ? []
    : sql.all(
        qb
          .selectFrom('board_members')
          .innerJoin('users', 'users.id', 'board_members.user_id')
          .selectAll('users')
          .select('board_members.board_id')
          .where('board_members.board_id', 'in', [...ids]),
      )
/** For each of these users, the boards they share with `viewerId`. */
export const boardsSharedWith = (sql: Sql, userIds: readonly string[], viewerId: string) =>
  userIds.length === 0
    ? []
    : sql.all(
        qb
          .selectFrom('board_members')
          .innerJoin('boards', 'boards.id', 'board_members.board_id')
          .selectAll('boards')
          .select('board_members.user_id')
          .where('board_members.user_id', 'in', [...userIds])
          .where('boards.id', 'in', memberBoardIds(viewerId))
          .orderBy('boards.name'),
      )
