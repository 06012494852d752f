// Note folder queries.
import { notesInSightOf } from '../../access/records.js'
import type { Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { forUpdate } from '../../db/dialect.js'
import type { NoteFoldersTable } from '../../db/types.js'

const folderById = (q: Q, id: string) => q.selectFrom('note_folders').selectAll().where('id', '=', id)
export const getFolder = (q: Q, id: string) => folderById(q, id).executeTakeFirst()
/** A folder locked until the transaction ends (see forUpdate): it cannot go while a note or a sub-folder is put in it. */
export const lockFolder = (q: Q, id: string) => forUpdate(q, folderById(q, id)).executeTakeFirst()
export const insertFolder = (q: Q, row: NoteFoldersTable) => q.insertInto('note_folders').values(row).execute()
export const updateFolderRow = (q: Q, id: string, set: Partial<NoteFoldersTable>) => q.updateTable('note_folders').set(set).where('id', '=', id).execute()
/** Deletes a folder; the schema deletes its sub-folders and takes their notes out of every folder. */
/** The ids of the folders directly inside any of these. */
export const childFolderIds = async (q: Q, parents: readonly string[]): Promise<string[]> =>
  (
    await q
      .selectFrom('note_folders')
      .select('id')
      .where('parent_id', 'in', [...parents])
      .execute()
  ).map((r) => r.id)
export const deleteFolderRow = (q: Q, id: string) => q.deleteFrom('note_folders').where('id', '=', id).execute()

/** Base query of the folder list: the folders the viewer sees. */
export const visibleFoldersQuery = (q: Q, viewer: Viewer) => q.selectFrom('note_folders').where(notesInSightOf(q, viewer, 'note_folders'))
