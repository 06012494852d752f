// Saved filter queries. Who sees which is decided in access/records.ts (savedFiltersInSightOf); these take it.
import { savedFiltersInSightOf } from '../../access/records.js'
import type { Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { SavedFiltersTable } from '../../db/types.js'

export const getSavedFilter = (q: Q, id: string) => q.selectFrom('saved_filters').selectAll().where('id', '=', id).executeTakeFirst()
/** The saved filter if the viewer sees it. */
export const savedFilterSeenBy = (q: Q, viewer: Viewer, id: string): Promise<SavedFiltersTable | undefined> =>
  q.selectFrom('saved_filters').selectAll().where('id', '=', id).where(savedFiltersInSightOf(q, viewer)).executeTakeFirst()
export const insertSavedFilter = (q: Q, row: SavedFiltersTable) => q.insertInto('saved_filters').values(row).execute()
export const updateSavedFilterRow = (q: Q, id: string, set: Partial<SavedFiltersTable>) =>
  q.updateTable('saved_filters').set(set).where('id', '=', id).execute()
export const deleteSavedFilterRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('saved_filters').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0
/** Base query of the list: the saved filters the viewer sees, optionally of one board. */
export function visibleSavedFiltersQuery(q: Q, viewer: Viewer, boardId?: string) {
  const query = q.selectFrom('saved_filters').where(savedFiltersInSightOf(q, viewer))
  return boardId ? query.where('saved_filters.board_id', '=', boardId) : query
}
