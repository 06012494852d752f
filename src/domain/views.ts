// API shapes of boards, lists and tags (cards have src/domain/card-view.ts).
import type { BoardsTable, ListsTable, TagsTable } from '../db/types.js'

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
