// Board-scoped tags; names are unique per board, case-insensitively. This family is the worked example in docs/architecture.md.
import type { Actor } from '../../access/roles.js'
import { visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { TagsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { expandBoard } from '../boards/present.js'
import { tagEventData, tagView } from './present.js'
import { TAG_LIST } from './query.js'
import type { CreateTagInput, UpdateTagInput } from './schema.js'
import { deleteTagRow, getTag, getTagByName, insertTag, updateTagRow, visibleTagsQuery } from './store.js'

const visibleTag = (deps: Deps, actor: Actor, id: string): TagsTable => visibleOnBoard(deps.sql, actor, getTag(deps.sql, id), 'tag')

export const getTagFor = (deps: Deps, actor: Actor, id: string) => tagView(visibleTag(deps, actor, id))

/** Tags of the boards the caller belongs to, or of one board. */
export function listTags(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  return listPage(
    deps.sql,
    visibleTagsQuery(actor.user.id, params.board),
    TAG_LIST,
    params,
    (rows: TagsTable[], expand) => expandBoard(deps.sql, rows.map(tagView), expand),
    { anchored: Boolean(params.board) },
  )
}

export function createTag(deps: Deps, actor: Actor, input: CreateTagInput) {
  const { sql } = deps
  return sql.tx(() => {
    const board = visibleBoard(sql, actor, input.board)
    if (getTagByName(sql, board.id, input.name)) throw conflict(`The board already has a tag named "${input.name}".`)
    const at = isoAt(deps.clock.now())
    const row: TagsTable = { id: newId(), board_id: board.id, name: input.name, color: input.color ?? null, created_at: at, updated_at: at }
    insertTag(sql, row)
    emitEvent(deps, { name: 'tag.created', boardId: board.id, data: tagEventData(row, board, actor) })
    return tagView(row)
  })
}

export function updateTag(deps: Deps, actor: Actor, id: string, input: UpdateTagInput) {
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
    emitEvent(deps, { name: 'tag.deleted', boardId: board.id, data: tagEventData(tag, board, actor) })
  })
}
