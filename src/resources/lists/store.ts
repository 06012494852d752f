// List queries.
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { firstOf, fixedQuery, rowsByIds, rowsOf } from '../../db/sql.js'
import type { ListsTable } from '../../db/types.js'

const listById = fixedQuery((q: Q, id: string) => q.selectFrom('lists').selectAll().where('id', '=', id))
export const getList = (q: Q, id: string) => firstOf(q, listById(q, id))
export const getLists = (q: Q, ids: readonly string[]) => rowsByIds(q, 'lists', ids)
const boardLists = fixedQuery((q: Q, boardId: string) =>
  q.selectFrom('lists').selectAll().where('board_id', '=', boardId).orderBy('position').orderBy('created_at'),
)
export const listsOfBoard = (q: Q, boardId: string): Promise<ListsTable[]> => rowsOf(q, boardLists(q, boardId))
export const insertList = (q: Q, row: ListsTable) => q.insertInto('lists').values(row).execute()
export const updateListRow = (q: Q, id: string, set: Partial<ListsTable>) => q.updateTable('lists').set(set).where('id', '=', id).execute()
export const deleteListRow = (q: Q, id: string) => q.deleteFrom('lists').where('id', '=', id).execute()
export const listsOfBoards = async (q: Q, ids: readonly string[]): Promise<ListsTable[]> =>
  ids.length === 0
    ? []
    : q
        .selectFrom('lists')
        .selectAll()
        .where('board_id', 'in', [...ids])
        .orderBy('position')
        .execute()

/** Base query of the list route: the lists of the boards a user sees, optionally of one board. */
export function visibleListsQuery(q: Q, viewer: Viewer, boardId?: string) {
  const query = q.selectFrom('lists').where('lists.board_id', 'in', visibleBoardIds(q, viewer))
  return boardId ? query.where('lists.board_id', '=', boardId) : query
}
