// Folder queries. Boards name their folder in boards.folder_id.
import type { Q } from '../../db/database.js'
import { lockRows } from '../../db/dialect.js'
import { rowsByIds } from '../../db/sql.js'
import type { FoldersTable } from '../../db/types.js'

export const getFolder = (q: Q, id: string) => q.selectFrom('folders').selectAll().where('id', '=', id).executeTakeFirst()
export const getFolders = (q: Q, ids: readonly string[]) => rowsByIds(q, 'folders', ids)
export const insertFolder = (q: Q, row: FoldersTable) => q.insertInto('folders').values(row).execute()
export const updateFolderRow = (q: Q, id: string, set: Partial<FoldersTable>) => q.updateTable('folders').set(set).where('id', '=', id).execute()
export const deleteFolderRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('folders').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0
/** The ids of the folders directly in these. */
export const childrenOf = async (q: Q, ids: readonly string[]): Promise<string[]> =>
  ids.length === 0
    ? []
    : (
        await q
          .selectFrom('folders')
          .select('id')
          .where('parent_id', 'in', [...ids])
          .execute()
      ).map((r) => r.id)
/** The position after the last folder of a parent (the top for null). */
export const nextFolderPosition = async (q: Q, parentId: string | null): Promise<number> =>
  Number(
    (
      await q
        .selectFrom('folders')
        .select((eb) => eb.fn.max('position').as('p'))
        .where((eb) => (parentId === null ? eb('parent_id', 'is', null) : eb('parent_id', '=', parentId)))
        .executeTakeFirst()
    )?.p ?? 0,
  ) + 1
/** What a deleted folder held goes to its parent: its boards and its folders. */
export async function moveContentsUp(q: Q, id: string, parentId: string | null, at: string): Promise<void> {
  await q.updateTable('boards').set({ folder_id: parentId }).where('folder_id', '=', id).execute()
  await q.updateTable('folders').set({ parent_id: parentId, updated_at: at }).where('parent_id', '=', id).execute()
}
/** Changes to the folder tree take turns (PostgreSQL; SQLite's one writer already does): no two moves make a cycle. */
export const lockFolderTree = (q: Q) => lockRows(q, q.selectFrom('workspace').select('id'))

export const foldersQuery = (q: Q) => q.selectFrom('folders')
