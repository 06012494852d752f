// Note folders. A folder on a board is seen and changed by whoever sees the board; a board-less folder by its creator,
// owners and admins. Notes keep the same rule (`inSight`). A parent is a folder the caller sees on the same board,
// never the folder itself or one of its sub-folders. Deleting a folder deletes its sub-folders; their notes stay, in no folder.
import { type Actor, creatorId, isAdmin } from '../../access/roles.js'
import { seesBoard, visibleBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { NoteFoldersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { invalidField, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { expandFolders, folderViews } from './present.js'
import { NOTE_FOLDER_LIST } from './query.js'
import type { CreateNoteFolderInput, NoteFolderView, UpdateNoteFolderInput } from './schema.js'
import { childFolderIds, deleteFolderRow, getFolder, insertFolder, lockFolder, updateFolderRow, visibleFoldersQuery } from './store.js'

/** A 422 naming one field of the body; the message says why too (bulk results carry only the message). */

/** The record if the actor sees it: on a board the actor sees, or board-less and the actor's (owners and admins: any); 404 otherwise. */
export async function inSight<T extends { board_id: string | null; created_by: string | null }>(
  q: Q,
  actor: Actor,
  row: T | undefined,
  what: string,
): Promise<T> {
  if (!row) throw notFound(what)
  const seen = row.board_id !== null ? await seesBoard(q, actor, row.board_id) : !actor.run && (isAdmin(actor) || row.created_by === actor.user.id)
  if (!seen) throw notFound(what)
  return row
}

function sameBoard(folder: NoteFoldersTable, boardId: string | null, path: string): NoteFoldersTable {
  if (folder.board_id !== boardId) throw invalidField(path, boardId ? 'The folder must be on the same board.' : 'The folder must be board-less too.')
  return folder
}

/** A folder to put something in, locked until the transaction ends: seen by the actor (404) and on `boardId` (422 at `path`). */
export const folderOn = async (q: Q, actor: Actor, id: string, boardId: string | null, path: string): Promise<NoteFoldersTable> =>
  sameBoard(await inSight(q, actor, await lockFolder(q, id), 'note folder'), boardId, path)

/** Whether `folder` is `ancestor` or inside it. The folders on the way up stay locked, so two moves at once cannot make a cycle. */
async function isWithin(q: Q, folder: string, ancestor: string): Promise<boolean> {
  const seen = new Set<string>()
  for (let at: string | null = folder; at !== null && !seen.has(at); at = (await lockFolder(q, at))?.parent_id ?? null) {
    if (at === ancestor) return true
    seen.add(at)
  }
  return false
}

/** How deep folders may nest: a deep chain would make every walk up it, and the cascade of a delete, unbounded. */
export const MAX_FOLDER_DEPTH = 16

/** Levels from the top down to `id` (a top folder is 1). */
async function depthOf(q: Q, id: string): Promise<number> {
  let depth = 0
  for (let at: string | null = id; at !== null && depth <= MAX_FOLDER_DEPTH; at = (await getFolder(q, at))?.parent_id ?? null) depth++
  return depth
}

/** Levels of sub-folders below `id` (none: 0), a query per level. */
async function heightBelow(q: Q, id: string): Promise<number> {
  let level = [id]
  let height = 0
  while (height <= MAX_FOLDER_DEPTH) {
    level = await childFolderIds(q, level)
    if (level.length === 0) break
    height++
  }
  return height
}

function refuseTooDeep(depth: number): void {
  if (depth > MAX_FOLDER_DEPTH) throw invalidField('parent', `Folders nest at most ${MAX_FOLDER_DEPTH} deep.`)
}

const viewOf = async (q: Q, id: string): Promise<NoteFolderView> => (await folderViews(q, [(await getFolder(q, id))!]))[0]

export function listNoteFolders(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, visibleFoldersQuery(q, actor.user), NOTE_FOLDER_LIST, params, async (rows: NoteFoldersTable[], expand) =>
    expandFolders(q, actor.user, await folderViews(q, rows), expand),
  )
}

export async function getNoteFolderFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  const row = await inSight(q, actor, await getFolder(q, id), 'note folder')
  return (await expandFolders(q, actor.user, await folderViews(q, [row]), parseExpand(expand, NOTE_FOLDER_LIST.expand)))[0]
}

export const createNoteFolder = (deps: Deps, actor: Actor, input: CreateNoteFolderInput): Promise<NoteFolderView> =>
  deps.db.tx(async ({ q }) => {
    if (input.board) await visibleBoard(q, actor, input.board)
    const parent = input.parent ? await inSight(q, actor, await lockFolder(q, input.parent), 'note folder') : undefined
    const boardId = input.board === undefined ? (parent?.board_id ?? null) : input.board
    if (parent) {
      sameBoard(parent, boardId, 'parent')
      refuseTooDeep((await depthOf(q, parent.id)) + 1)
    }
    const at = isoAt(deps.clock.now())
    const row: NoteFoldersTable = {
      id: newId(),
      name: input.name,
      parent_id: parent?.id ?? null,
      board_id: boardId,
      created_by: creatorId(actor),
      created_at: at,
      updated_at: at,
    }
    await insertFolder(q, row)
    return viewOf(q, row.id)
  })

/** Renames a folder or moves it under another parent (null: to the top) on its board; its board never changes. */
export const updateNoteFolder = (deps: Deps, actor: Actor, id: string, input: UpdateNoteFolderInput): Promise<NoteFolderView> =>
  deps.db.tx(async ({ q }) => {
    const folder = await inSight(q, actor, await lockFolder(q, id), 'note folder')
    if (input.parent) {
      await folderOn(q, actor, input.parent, folder.board_id, 'parent')
      if (await isWithin(q, input.parent, id)) throw invalidField('parent', 'A folder cannot go inside itself or one of its sub-folders.')
      refuseTooDeep((await depthOf(q, input.parent)) + 1 + (await heightBelow(q, id)))
    }
    await updateFolderRow(q, id, {
      ...(input.name !== undefined && { name: input.name }),
      ...(input.parent !== undefined && { parent_id: input.parent }),
      updated_at: isoAt(deps.clock.now()),
    })
    return viewOf(q, id)
  })

export const deleteNoteFolder = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    await inSight(q, actor, await lockFolder(q, id), 'note folder')
    await deleteFolderRow(q, id)
  })
