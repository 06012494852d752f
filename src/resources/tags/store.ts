// Tag queries; names are unique per board, case-insensitively.
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { TagsTable } from '../../db/types.js'

export const getTag = (q: Q, id: string) => q.selectFrom('tags').selectAll().where('id', '=', id).executeTakeFirst()
export const getTags = (q: Q, ids: readonly string[]) => rowsByIds(q, 'tags', ids)
export const tagsOfBoard = (q: Q, boardId: string): Promise<TagsTable[]> =>
  q.selectFrom('tags').selectAll().where('board_id', '=', boardId).orderBy('name').execute()
export const getTagByName = (q: Q, boardId: string, name: string) =>
  q
    .selectFrom('tags')
    .selectAll()
    .where('board_id', '=', boardId)
    // Unicode case folding: "Ärger" and "ärger" are the same tag, either way round.
    .where((eb) => eb(eb.fn('taskd_fold', ['name']), '=', eb.fn('taskd_fold', [eb.val(name)])))
    .executeTakeFirst()
export const insertTag = (q: Q, row: TagsTable) => q.insertInto('tags').values(row).execute()
export const updateTagRow = (q: Q, id: string, set: Partial<TagsTable>) => q.updateTable('tags').set(set).where('id', '=', id).execute()
/** Deletes a tag; false when it was already gone (a concurrent delete). */
export const deleteTagRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('tags').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

/** Base query of the tag route: the tags of the boards a user sees, optionally of one board. */
export function visibleTagsQuery(q: Q, viewer: Viewer, boardId?: string) {
  const query = q.selectFrom('tags').where('tags.board_id', 'in', visibleBoardIds(q, viewer))
  return boardId ? query.where('tags.board_id', '=', boardId) : query
}
