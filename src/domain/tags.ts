// Board-scoped tags; names are unique per board, case-insensitively.
import type { TagsTable } from '../db/types.js'
import { isoAt } from '../clock.js'
import { newId } from '../ids.js'
import { conflict, notFound } from '../http/errors.js'
import { deleteTagRow, getTag, getTagByName, insertTag, updateTagRow } from '../store/boards.js'
import { emitEvent } from '../events/emit.js'
import { visibleBoard } from './access.js'
import type { Actor, Deps } from './context.js'
import { tagView } from './views.js'

export function visibleTag(deps: Deps, actor: Actor, id: string): TagsTable {
  const tag = getTag(deps.sql, id)
  if (!tag) throw notFound('tag')
  visibleBoard(deps.sql, actor, tag.board_id, 'tag')
  return tag
}

export function createTag(deps: Deps, actor: Actor, input: { board: string; name: string; color?: string | null }) {
  const { sql } = deps
  return sql.tx(() => {
    const board = visibleBoard(sql, actor, input.board)
    if (getTagByName(sql, board.id, input.name)) throw conflict(`The board already has a tag named "${input.name}".`)
    const at = isoAt(deps.clock.now())
    const row: TagsTable = { id: newId(), board_id: board.id, name: input.name, color: input.color ?? null, created_at: at, updated_at: at }
    insertTag(sql, row)
    emitEvent(deps, { name: 'tag.created', boardId: board.id, data: { id: row.id, name: row.name, color: row.color, board: { id: board.id, name: board.name }, actor: { id: actor.user.id, name: actor.user.name } } })
    return tagView(row)
  })
}

export function updateTag(deps: Deps, actor: Actor, id: string, input: { name?: string; color?: string | null }) {
  const { sql } = deps
  return sql.tx(() => {
    const tag = visibleTag(deps, actor, id)
    if (input.name !== undefined) {
      const clash = getTagByName(sql, tag.board_id, input.name)
      if (clash && clash.id !== id) throw conflict(`The board already has a tag named "${input.name}".`)
    }
    const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
    updateTagRow(sql, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    return tagView(getTag(sql, id)!)
  })
}

export function deleteTag(deps: Deps, actor: Actor, id: string): void {
  const { sql } = deps
  sql.tx(() => {
    const tag = visibleTag(deps, actor, id)
    const board = visibleBoard(sql, actor, tag.board_id)
    deleteTagRow(sql, id)
    emitEvent(deps, { name: 'tag.deleted', boardId: board.id, data: { id: tag.id, name: tag.name, color: tag.color, board: { id: board.id, name: board.name }, actor: { id: actor.user.id, name: actor.user.name } } })
  })
}
