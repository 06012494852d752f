// Tag queries; names are unique per board, case-insensitively.
import { memberBoardIds } from '../../access/visibility.js'
import type { Sql } from '../../db/sql.js'
import { qb } from '../../db/sql.js'
import type { TagsTable } from '../../db/types.js'

export const getTag = (sql: Sql, id: string) => sql.first(qb.selectFrom('tags').selectAll().where('id', '=', id))
export const getTags = (sql: Sql, ids: readonly string[]): TagsTable[] =>
  ids.length === 0
    ? []
    : sql.all(
        qb
          .selectFrom('tags')
          .selectAll()
          .where('id', 'in', [...new Set(ids)]),
      )
export const tagsOfBoard = (sql: Sql, boardId: string): TagsTable[] =>
  sql.all(qb.selectFrom('tags').selectAll().where('board_id', '=', boardId).orderBy('name'))
export const getTagByName = (sql: Sql, boardId: string, name: string) =>
  sql.first(
    qb
      .selectFrom('tags')
      .selectAll()
      .where('board_id', '=', boardId)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase())),
  )
export const insertTag = (sql: Sql, row: TagsTable) => sql.run(qb.insertInto('tags').values(row))
export const updateTagRow = (sql: Sql, id: string, set: Partial<TagsTable>) => sql.run(qb.updateTable('tags').set(set).where('id', '=', id))
export const deleteTagRow = (sql: Sql, id: string) => sql.run(qb.deleteFrom('tags').where('id', '=', id))

/** Base query of the tag route: the tags of the boards a user belongs to, optionally of one board. */
export function visibleTagsQuery(userId: string, boardId?: string) {
  const q = qb.selectFrom('tags').where('tags.board_id', 'in', memberBoardIds(userId))
  return boardId ? q.where('tags.board_id', '=', boardId) : q
}
