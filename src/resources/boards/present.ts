// Boards in API shape, and `expand=board(s)` for records that point at boards; creators come from one query per page.
import { boardsSeenAmong, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { BoardsTable } from '../../db/types.js'
import type { UserRef } from '../../http/schemas.js'
import { creatorsOf } from '../users/present.js'
import type { BoardView } from './schema.js'
import { getBoards } from './store.js'

export const boardView = (b: BoardsTable, creator: UserRef | null): BoardView => ({
  id: b.id,
  name: b.name,
  description: b.description,
  key_prefix: b.key_prefix,
  created_by: creator,
  created: b.created_at,
  updated: b.updated_at,
  trashed: b.trashed_at !== null,
  trashed_at: b.trashed_at,
  purge_at: b.purge_at,
  folder: b.folder_id,
})

export async function boardViews(q: Q, rows: readonly BoardsTable[]): Promise<BoardView[]> {
  const creator = await creatorsOf(q, rows)
  return rows.map((b) => boardView(b, creator(b.created_by)))
}

/** `expand=board` on a page of records that live on a board: their boards in one query. */
export async function expandBoard<T extends { board: string }>(
  q: Q,
  items: T[],
  expand: ReadonlySet<string>,
): Promise<(T & { expand?: { board?: BoardView } })[]> {
  if (!expand.has('board')) return items
  const boards = new Map(
    (
      await boardViews(
        q,
        await getBoards(
          q,
          items.map((i) => i.board),
        ),
      )
    ).map((b) => [b.id, b]),
  )
  return items.map((i) => ({ ...i, expand: { board: boards.get(i.board) } }))
}

/** `expand=boards` on records holding a `boards` id list: those of their boards `viewer` sees (one query to pick them, one to load them). */
export async function expandBoards<T extends { boards: string[] }>(
  q: Q,
  items: T[],
  expand: ReadonlySet<string>,
  viewer: Viewer,
): Promise<(T & { expand?: { boards: BoardView[] } })[]> {
  if (!expand.has('boards')) return items
  const ids = items.flatMap((i) => i.boards)
  const seen = await boardsSeenAmong(q, viewer, ids)
  const rows = await getBoards(
    q,
    ids.filter((id) => seen.has(id)),
  )
  const boards = new Map((await boardViews(q, rows)).map((b) => [b.id, b]))
  return items.map((i) => ({ ...i, expand: { boards: i.boards.map((id) => boards.get(id)).filter((b): b is BoardView => b !== undefined) } }))
}
