// Board, membership, list and tag queries.
import type { Sql } from '../db/sql.js'
import { fixedQuery, qb } from '../db/sql.js'
import type { BoardsTable, ListsTable, TagsTable } from '../db/types.js'

export const getBoard = (sql: Sql, id: string) => sql.first(qb.selectFrom('boards').selectAll().where('id', '=', id))
/** The board if the user is a member of it, in one query. */
const memberBoard = fixedQuery((id: string, userId: string) => qb.selectFrom('boards').selectAll().where('id', '=', id)
  .where((eb) => eb.exists(eb.selectFrom('board_members').select('user_id').whereRef('board_members.board_id', '=', 'boards.id').where('board_members.user_id', '=', userId))))
export const getMemberBoard = (sql: Sql, id: string, userId: string) => sql.first(memberBoard(id, userId))
export const getBoards = (sql: Sql, ids: readonly string[]): BoardsTable[] =>
  ids.length === 0 ? [] : sql.all(qb.selectFrom('boards').selectAll().where('id', 'in', [...new Set(ids)]))
export const insertBoard = (sql: Sql, row: BoardsTable) => sql.run(qb.insertInto('boards').values(row))
export const updateBoardRow = (sql: Sql, id: string, set: Partial<BoardsTable>) => sql.run(qb.updateTable('boards').set(set).where('id', '=', id))
export const deleteBoardRow = (sql: Sql, id: string) => sql.run(qb.deleteFrom('boards').where('id', '=', id))

/** Takes the next card number of a board; numbers are never handed out twice. */
const nextKey = fixedQuery((boardId: string) => qb.updateTable('boards').set((eb) => ({ next_key: eb('next_key', '+', 1) })).where('id', '=', boardId).returning('next_key'))
export function takeCardNumber(sql: Sql, boardId: string): number {
  const row = sql.first(nextKey(boardId))
  return row!.next_key - 1
}

export const isBoardMember = (sql: Sql, boardId: string, userId: string): boolean =>
  sql.first(qb.selectFrom('board_members').select('user_id').where('board_id', '=', boardId).where('user_id', '=', userId)) !== undefined
export const addBoardMember = (sql: Sql, boardId: string, userId: string, at: string) =>
  sql.run(qb.insertInto('board_members').values({ board_id: boardId, user_id: userId, created_at: at }).onConflict((oc) => oc.doNothing()))
export const removeBoardMember = (sql: Sql, boardId: string, userId: string) =>
  sql.run(qb.deleteFrom('board_members').where('board_id', '=', boardId).where('user_id', '=', userId))
/** Ids of the boards a user belongs to, as a subquery for visibility. */
export const memberBoardIds = (userId: string) => qb.selectFrom('board_members').select('board_members.board_id').where('board_members.user_id', '=', userId)

const listById = fixedQuery((id: string) => qb.selectFrom('lists').selectAll().where('id', '=', id))
export const getList = (sql: Sql, id: string) => sql.first(listById(id))
export const getLists = (sql: Sql, ids: readonly string[]): ListsTable[] =>
  ids.length === 0 ? [] : sql.all(qb.selectFrom('lists').selectAll().where('id', 'in', [...new Set(ids)]))
const boardLists = fixedQuery((boardId: string) => qb.selectFrom('lists').selectAll().where('board_id', '=', boardId).orderBy('position').orderBy('created_at'))
export const listsOfBoard = (sql: Sql, boardId: string): ListsTable[] => sql.all(boardLists(boardId))
export const insertList = (sql: Sql, row: ListsTable) => sql.run(qb.insertInto('lists').values(row))
export const updateListRow = (sql: Sql, id: string, set: Partial<ListsTable>) => sql.run(qb.updateTable('lists').set(set).where('id', '=', id))
export const deleteListRow = (sql: Sql, id: string) => sql.run(qb.deleteFrom('lists').where('id', '=', id))
export const maxListPosition = (sql: Sql, boardId: string): number =>
  sql.first(qb.selectFrom('lists').select((eb) => eb.fn.max('position').as('p')).where('board_id', '=', boardId))?.p ?? 0

export const getTag = (sql: Sql, id: string) => sql.first(qb.selectFrom('tags').selectAll().where('id', '=', id))
export const getTags = (sql: Sql, ids: readonly string[]): TagsTable[] =>
  ids.length === 0 ? [] : sql.all(qb.selectFrom('tags').selectAll().where('id', 'in', [...new Set(ids)]))
export const tagsOfBoard = (sql: Sql, boardId: string): TagsTable[] => sql.all(qb.selectFrom('tags').selectAll().where('board_id', '=', boardId).orderBy('name'))
export const getTagByName = (sql: Sql, boardId: string, name: string) =>
  sql.first(qb.selectFrom('tags').selectAll().where('board_id', '=', boardId).where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase())))
export const insertTag = (sql: Sql, row: TagsTable) => sql.run(qb.insertInto('tags').values(row))
export const updateTagRow = (sql: Sql, id: string, set: Partial<TagsTable>) => sql.run(qb.updateTable('tags').set(set).where('id', '=', id))
export const deleteTagRow = (sql: Sql, id: string) => sql.run(qb.deleteFrom('tags').where('id', '=', id))

/** Base queries of list routes: the rows of the boards a user belongs to (filters and paging are added on top). */
export const visibleBoardsQuery = (userId: string) => qb.selectFrom('boards').where('boards.id', 'in', memberBoardIds(userId))
export function visibleListsQuery(userId: string, boardId?: string) {
  const q = qb.selectFrom('lists').where('lists.board_id', 'in', memberBoardIds(userId))
  return boardId ? q.where('lists.board_id', '=', boardId) : q
}
export function visibleTagsQuery(userId: string, boardId?: string) {
  const q = qb.selectFrom('tags').where('tags.board_id', 'in', memberBoardIds(userId))
  return boardId ? q.where('tags.board_id', '=', boardId) : q
}
export const boardMembersQuery = (boardId: string) =>
  qb.selectFrom('users').where('users.id', 'in', qb.selectFrom('board_members').select('user_id').where('board_id', '=', boardId))

/** Lists and members of a page of boards, one query each. */
export const listsOfBoards = (sql: Sql, ids: readonly string[]): ListsTable[] =>
  ids.length === 0 ? [] : sql.all(qb.selectFrom('lists').selectAll().where('board_id', 'in', [...ids]).orderBy('position'))
export const membersOfBoards = (sql: Sql, ids: readonly string[]) =>
  ids.length === 0 ? [] : sql.all(qb.selectFrom('board_members').innerJoin('users', 'users.id', 'board_members.user_id')
    .selectAll('users').select('board_members.board_id').where('board_members.board_id', 'in', [...ids]))
/** For each of these users, the boards they share with `viewerId`. */
export const boardsSharedWith = (sql: Sql, userIds: readonly string[], viewerId: string) =>
  userIds.length === 0 ? [] : sql.all(qb.selectFrom('board_members').innerJoin('boards', 'boards.id', 'board_members.board_id').selectAll('boards')
    .select('board_members.user_id').where('board_members.user_id', 'in', [...userIds]).where('boards.id', 'in', memberBoardIds(viewerId)).orderBy('boards.name'))
