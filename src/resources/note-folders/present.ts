// Note folders in API shape (their creators in one query per page), and the expansions the notes families share.
import { isAdminRole } from '../../access/roles.js'
import type { Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { NoteFoldersTable } from '../../db/types.js'
import { boardViews } from '../boards/present.js'
import type { BoardView } from '../boards/schema.js'
import { creatorsOf } from '../users/present.js'
import type { NoteFolderView } from './schema.js'

export async function folderViews(q: Q, rows: readonly NoteFoldersTable[]): Promise<NoteFolderView[]> {
  const creator = await creatorsOf(q, rows)
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    parent: r.parent_id,
    board: r.board_id,
    created_by: creator(r.created_by),
    created: r.created_at,
    updated: r.updated_at,
  }))
}

/** The views of the records a page names (null ids left out), loaded by `load` in one go, by id. */
export async function viewsById<V extends { id: string }>(ids: readonly (string | null)[], load: (ids: string[]) => Promise<V[]>): Promise<Map<string, V>> {
  const wanted = [...new Set(ids.filter((id) => id !== null))]
  return new Map((wanted.length ? await load(wanted) : []).map((v) => [v.id, v]))
}

/** An expanded relation: the record an id names, or null (no id, or out of the viewer's sight). */
export const expanded = <V>(views: ReadonlyMap<string, V>, id: string | null): V | null => (id === null ? null : (views.get(id) ?? null))

export const boardsById = (q: Q, ids: readonly (string | null)[]): Promise<Map<string, BoardView>> =>
  viewsById(ids, async (wanted) => boardViews(q, await rowsByIds(q, 'boards', wanted)))

/**
 * Folders for `expand`, as `viewer` sees them. A folder on a board is named only by records on that board, which the
 * viewer sees; a board-less one is seen by its creator, owners and admins (an admin may have filed someone's note in theirs).
 */
export const foldersById = (q: Q, viewer: Viewer, ids: readonly (string | null)[]): Promise<Map<string, NoteFolderView>> =>
  viewsById(ids, async (wanted) =>
    folderViews(
      q,
      (await rowsByIds(q, 'note_folders', wanted)).filter((f) => f.board_id !== null || isAdminRole(viewer.role) || f.created_by === viewer.id),
    ),
  )

/** `expand=parent,board` on a page of folders. */
export async function expandFolders(q: Q, viewer: Viewer, views: NoteFolderView[], expand: ReadonlySet<string>) {
  if (expand.size === 0) return views
  const parents = expand.has('parent')
    ? await foldersById(
        q,
        viewer,
        views.map((v) => v.parent),
      )
    : undefined
  const boards = expand.has('board')
    ? await boardsById(
        q,
        views.map((v) => v.board),
      )
    : undefined
  return views.map((v) => ({
    ...v,
    expand: { ...(parents && { parent: expanded(parents, v.parent) }), ...(boards && { board: expanded(boards, v.board) }) },
  }))
}
