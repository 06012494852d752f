// Board-scoped tags; names are unique per board, case-insensitively. This family is the worked example in docs/architecture.md.
import type { Actor } from '../../access/roles.js'
import { visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { TagsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { expandBoard } from '../boards/present.js'
import { tagEventData, tagView } from './present.js'
import { TAG_LIST } from './query.js'
import type { CreateTagInput, UpdateTagInput } from './schema.js'
import { lockBoard } from '../boards/published.js'
import { deleteTagRow, getTag, getTagByName, insertTag, updateTagRow, visibleTagsQuery } from './store.js'

const visibleTag = async (q: Q, actor: Actor, id: string): Promise<TagsTable> => visibleOnBoard(q, actor, await getTag(q, id), 'tag')

export const getTagFor = async (deps: Deps, actor: Actor, id: string) => tagView(await visibleTag(deps.db.q, actor, id))

/** Tags of the boards the caller belongs to, or of one board. */
export function listTags(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleTagsQuery(q, actor.user, params.board),
    TAG_LIST,
    params,
    (rows: TagsTable[], expand) => expandBoard(q, rows.map(tagView), expand),
    {
      anchored: Boolean(params.board),
    },
  )
}

export function createTag(deps: Deps, actor: Actor, input: CreateTagInput) {
  return deps.db.tx(async (tx) => {
    const board = await visibleBoard(tx.q, actor, input.board)
    await lockBoard(tx.q, board.id) // two names that fold alike, sent at once, cannot both pass the check
    if (await getTagByName(tx.q, board.id, input.name)) throw conflict(`The board already has a tag named "${input.name}".`)
    const at = isoAt(deps.clock.now())
    const row: TagsTable = { id: newId(), board_id: board.id, name: input.name, color: input.color ?? null, created_at: at, updated_at: at }
    await insertTag(tx.q, row)
    await emitEvent(deps, tx, { name: 'tag.created', boardId: board.id, data: tagEventData(row, board), actor })
    return tagView(row)
  })
}

export function updateTag(deps: Deps, actor: Actor, id: string, input: UpdateTagInput) {
  return deps.db.tx(async ({ q }) => {
    const tag = await visibleTag(q, actor, id)
    if (input.name !== undefined) {
      await lockBoard(q, tag.board_id)
      const clash = await getTagByName(q, tag.board_id, input.name)
      if (clash && clash.id !== id) throw conflict(`The board already has a tag named "${input.name}".`)
    }
    const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
    await updateTagRow(q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    return tagView((await getTag(q, id))!)
  })
}

export function deleteTag(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const tag = await visibleTag(tx.q, actor, id)
    const board = await visibleBoard(tx.q, actor, tag.board_id)
    if (!(await deleteTagRow(tx.q, id))) throw notFound('tag')
    await emitEvent(deps, tx, { name: 'tag.deleted', boardId: board.id, data: tagEventData(tag, board), actor })
  })
}
