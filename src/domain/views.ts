// API shapes of boards, lists and tags (cards have src/domain/card-view.ts).
import type { Sql } from '../db/sql.js'
import type { BoardsTable, ListsTable, TagsTable } from '../db/types.js'
import { getBoards, memberBoardIds } from '../store/boards.js'

export interface BoardView { id: string; name: string; description: string; key_prefix: string; created_by: string | null; created: string; updated: string }
export interface ListView { id: string; board: string; name: string; position: number; category: ListsTable['category']; created: string; updated: string }
export interface TagView { id: string; board: string; name: string; color: string | null; created: string; updated: string }

export const boardView = (b: BoardsTable): BoardView => ({
  id: b.id, name: b.name, description: b.description, key_prefix: b.key_prefix, created_by: b.created_by, created: b.created_at, updated: b.updated_at,
})
export const listView = (l: ListsTable): ListView => ({
  id: l.id, board: l.board_id, name: l.name, position: l.position, category: l.category, created: l.created_at, updated: l.updated_at,
})
export const tagView = (t: TagsTable): TagView => ({
  id: t.id, board: t.board_id, name: t.name, color: t.color, created: t.created_at, updated: t.updated_at,
})

/** `expand=board` on a page of lists or tags: their boards in one query. */
export function expandBoards<T extends { board: string }>(sql: Sql, items: T[], expand: ReadonlySet<string>): (T & { expand?: { board?: BoardView } })[] {
  if (!expand.has('board')) return items
  const boards = new Map(getBoards(sql, items.map((i) => i.board)).map((b) => [b.id, boardView(b)]))
  return items.map((i) => ({ ...i, expand: { board: boards.get(i.board) } }))
}

/** `expand=boards` on records holding a `boards` id list: their boards in one query; with `visibleTo`, only that user's boards. */
export function expandBoardList<T extends { boards: string[] }>(sql: Sql, items: T[], expand: ReadonlySet<string>, visibleTo?: string): (T & { expand?: { boards: BoardView[] } })[] {
  if (!expand.has('boards')) return items
  let rows = getBoards(sql, items.flatMap((i) => i.boards))
  if (visibleTo !== undefined) {
    const mine = new Set(sql.all(memberBoardIds(visibleTo)).map((r) => r.board_id))
    rows = rows.filter((b) => mine.has(b.id))
  }
  const boards = new Map(rows.map((b) => [b.id, boardView(b)]))
  return items.map((i) => ({ ...i, expand: { boards: i.boards.map((id) => boards.get(id)).filter((b): b is BoardView => b !== undefined) } }))
}
