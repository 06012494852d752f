// Board status queries; names are unique per board, case-insensitively. Lists name their status in lists.status_id.
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { BoardStatusesTable, ListsTable } from '../../db/types.js'
import type { CardStatus } from './schema.js'

export const getStatus = (q: Q, id: string) => q.selectFrom('board_statuses').selectAll().where('id', '=', id).executeTakeFirst()
export const statusesOfBoard = (q: Q, boardId: string): Promise<BoardStatusesTable[]> =>
  q.selectFrom('board_statuses').selectAll().where('board_id', '=', boardId).orderBy('position').orderBy('created_at').execute()
export const getStatusByName = (q: Q, boardId: string, name: string) =>
  q
    .selectFrom('board_statuses')
    .selectAll()
    .where('board_id', '=', boardId)
    .where((eb) => eb(eb.fn('taskd_fold', ['name']), '=', eb.fn('taskd_fold', [eb.val(name)])))
    .executeTakeFirst()
export const insertStatus = (q: Q, row: BoardStatusesTable) => q.insertInto('board_statuses').values(row).execute()
export const updateStatusRow = (q: Q, id: string, set: Partial<BoardStatusesTable>) => q.updateTable('board_statuses').set(set).where('id', '=', id).execute()
export const deleteStatusRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('board_statuses').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0
/** The position after the board's last status. */
export const nextStatusPosition = async (q: Q, boardId: string): Promise<number> =>
  Number(
    (
      await q
        .selectFrom('board_statuses')
        .select((eb) => eb.fn.max('position').as('p'))
        .where('board_id', '=', boardId)
        .executeTakeFirst()
    )?.p ?? 0,
  ) + 1

/**
 * When `listId` is the only list bound to the status, gives the status `category` (a list alone on its status changing
 * category takes its status along); undefined when other lists share the status.
 */
export async function recategorizeStatus(
  q: Q,
  statusId: string,
  listId: string,
  category: BoardStatusesTable['category'],
  at: string,
): Promise<{ status: BoardStatusesTable; changed: boolean } | undefined> {
  const shared = await q.selectFrom('lists').select('id').where('status_id', '=', statusId).where('id', '!=', listId).limit(1).execute()
  const status = shared.length ? undefined : await getStatus(q, statusId)
  if (!status) return undefined
  if (status.category === category) return { status, changed: false }
  await updateStatusRow(q, statusId, { category, updated_at: at })
  return { status: { ...status, category, updated_at: at }, changed: true }
}

/** The lists bound to a status, in board order. */
export const listsWithStatus = (q: Q, statusId: string): Promise<ListsTable[]> =>
  q.selectFrom('lists').selectAll().where('status_id', '=', statusId).orderBy('position').orderBy('created_at').execute()
/** The board's first list bound to a status (where a card given that status goes). */
export const firstListWithStatus = (q: Q, boardId: string, statusId: string) =>
  q
    .selectFrom('lists')
    .selectAll()
    .where('board_id', '=', boardId)
    .where('status_id', '=', statusId)
    .orderBy('position')
    .orderBy('created_at')
    .executeTakeFirst()
/** Binds the lists of one status to another (or the same), which gives them its category. */
export const rebindLists = (q: Q, fromStatus: string, toStatus: string, category: ListsTable['category'], at: string) =>
  q.updateTable('lists').set({ status_id: toStatus, category, updated_at: at }).where('status_id', '=', fromStatus).execute()

/** The status of each list, for a page of cards: one query whatever the page size. */
export async function statusesOfLists(q: Q, listIds: readonly string[]): Promise<Map<string, CardStatus>> {
  if (listIds.length === 0) return new Map()
  const rows = await q
    .selectFrom('lists')
    .innerJoin('board_statuses', 'board_statuses.id', 'lists.status_id')
    .select(['lists.id as list_id', 'board_statuses.id', 'board_statuses.name', 'board_statuses.category'])
    .where('lists.id', 'in', [...new Set(listIds)])
    .execute()
  return new Map(rows.map((r) => [r.list_id, { id: r.id, name: r.name, category: r.category }]))
}

/** Base query of the list route: the statuses of the boards a user sees, optionally of one board. */
export function visibleStatusesQuery(q: Q, viewer: Viewer, boardId?: string) {
  const query = q.selectFrom('board_statuses').where('board_statuses.board_id', 'in', visibleBoardIds(q, viewer))
  return boardId ? query.where('board_statuses.board_id', '=', boardId) : query
}
