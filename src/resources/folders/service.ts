// Folders of boards, workspace-wide. Every member sees every folder (the boards in them stay visible to their members
// only); any member with a write token makes one; its creator and workspace owners and admins change and delete it.
// Deleting a folder moves its boards and folders to its parent.
import { type Actor, creatorId, isAdmin } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { FoldersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { forbidden, invalidField, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { folderEventData, folderView } from './present.js'
import { FOLDER_LIST } from './query.js'
import { type CreateFolderInput, MAX_FOLDER_DEPTH, type UpdateFolderInput } from './schema.js'
import {
  childrenOf,
  deleteFolderRow,
  foldersQuery,
  getFolder,
  getFolders,
  insertFolder,
  lockFolderTree,
  moveContentsUp,
  nextFolderPosition,
  updateFolderRow,
} from './store.js'

const found = async (q: Q, id: string): Promise<FoldersTable> => {
  const folder = await getFolder(q, id)
  if (!folder) throw notFound('folder')
  return folder
}

/** The folder to change: its creator and workspace owners and admins may. */
async function folderToManage(q: Q, actor: Actor, id: string, action: string): Promise<FoldersTable> {
  const folder = await found(q, id)
  if (!isAdmin(actor) && folder.created_by !== actor.user.id) throw forbidden(`Only the folder's creator and workspace owners and admins can ${action}.`)
  return folder
}

/** The ids from a folder up to the top: itself first. */
async function chainUp(q: Q, id: string): Promise<string[]> {
  const chain: string[] = []
  for (let at: string | null = id; at !== null && chain.length <= MAX_FOLDER_DEPTH + 1;) {
    chain.push(at)
    at = (await getFolder(q, at))?.parent_id ?? null
  }
  return chain
}

/** How many levels a folder's subtree has, itself included (1 for one without folders in it). */
async function heightOf(q: Q, id: string): Promise<number> {
  let level = [id]
  let height = 0
  while (level.length && height <= MAX_FOLDER_DEPTH) {
    height++
    level = await childrenOf(q, level)
  }
  return height
}

const tooDeep = () => invalidField('parent', `Folders nest at most ${MAX_FOLDER_DEPTH} deep.`)

/** The parent named in a body, checked: it exists, and `height` more levels under it stay within the depth limit. */
async function checkParent(q: Q, parentId: string, height: number): Promise<void> {
  if (!(await getFolder(q, parentId))) throw invalidField('parent', 'No such folder.')
  if ((await chainUp(q, parentId)).length + height > MAX_FOLDER_DEPTH) throw tooDeep()
}

export const getFolderFor = async (deps: Deps, _actor: Actor, id: string) => folderView(await found(deps.db.q, id))

/** Every folder of the workspace (every member sees them all); `expand=parent` inlines each one's parent. */
export function listFolders(deps: Deps, _actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, foldersQuery(q), FOLDER_LIST, params, async (rows: FoldersTable[], expand) => {
    const views = rows.map(folderView)
    if (!expand.has('parent')) return views
    const parents = new Map(
      (
        await getFolders(
          q,
          rows.flatMap((r) => (r.parent_id ? [r.parent_id] : [])),
        )
      ).map((p) => [p.id, folderView(p)]),
    )
    return views.map((v) => ({ ...v, expand: { parent: v.parent ? (parents.get(v.parent) ?? null) : null } }))
  })
}

export function createFolder(deps: Deps, actor: Actor, input: CreateFolderInput) {
  return deps.db.tx(async (tx) => {
    await lockFolderTree(tx.q)
    const parent = input.parent ?? null
    if (parent !== null) await checkParent(tx.q, parent, 1)
    const at = isoAt(deps.clock.now())
    const row: FoldersTable = {
      id: newId(),
      name: input.name,
      parent_id: parent,
      position: input.position ?? (await nextFolderPosition(tx.q, parent)),
      created_by: creatorId(actor),
      created_at: at,
      updated_at: at,
    }
    await insertFolder(tx.q, row)
    await emitEvent(deps, tx, { name: 'folder.created', boardId: null, data: folderEventData(row), actor })
    return folderView(row)
  })
}

export function updateFolder(deps: Deps, actor: Actor, id: string, input: UpdateFolderInput) {
  return deps.db.tx(async (tx) => {
    await lockFolderTree(tx.q)
    const folder = await folderToManage(tx.q, actor, id, 'rename or move it')
    const set: Partial<FoldersTable> = {}
    if (input.name !== undefined) set.name = input.name
    if (input.position !== undefined) set.position = input.position
    if (input.parent !== undefined && input.parent !== folder.parent_id) {
      if (input.parent !== null) {
        if ((await chainUp(tx.q, input.parent)).includes(id)) throw invalidField('parent', 'A folder cannot go into itself or into a folder inside it.')
        await checkParent(tx.q, input.parent, await heightOf(tx.q, id))
      }
      set.parent_id = input.parent
      if (input.position === undefined) set.position = await nextFolderPosition(tx.q, input.parent)
    }
    await updateFolderRow(tx.q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    const row = (await getFolder(tx.q, id))!
    await emitEvent(deps, tx, { name: 'folder.updated', boardId: null, data: folderEventData(row), actor })
    return folderView(row)
  })
}

export function deleteFolder(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    await lockFolderTree(tx.q)
    const folder = await folderToManage(tx.q, actor, id, 'delete it')
    await moveContentsUp(tx.q, id, folder.parent_id, isoAt(deps.clock.now()))
    if (!(await deleteFolderRow(tx.q, id))) throw notFound('folder')
    await emitEvent(deps, tx, { name: 'folder.deleted', boardId: null, data: folderEventData(folder), actor })
  })
}
