// Board statuses: names unique per board (case-insensitively); a category change carries over to the lists bound to
// the status, and their cards follow the completion rule; a rename or a category change announces every card of those
// lists (card.updated naming `status`) in its own transaction; a status still bound to lists is deleted only with move_to.
import type { Actor } from '../../access/roles.js'
import { visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import { inChunks, type Q } from '../../db/database.js'
import type { BoardStatusesTable, ListsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, invalidField, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { expandBoard } from '../boards/present.js'
import { lockBoard } from '../boards/published.js'
import { completionAfterMove } from '../cards/completion.js'
import { announceStatusOfList, announceStatusOfListsIn, settleCardsOfList } from '../cards/service.js'
import { getList } from '../lists/published.js'
import { statusEventData, statusView } from './present.js'
import { BOARD_STATUS_LIST } from './query.js'
import type { CreateBoardStatusInput, UpdateBoardStatusInput } from './schema.js'
import {
  deleteStatusRow,
  getStatus,
  getStatusByName,
  insertStatus,
  listsWithStatus,
  nextStatusPosition,
  rebindLists,
  updateStatusRow,
  visibleStatusesQuery,
} from './store.js'

const visibleStatus = async (q: Q, actor: Actor, id: string): Promise<BoardStatusesTable> => visibleOnBoard(q, actor, await getStatus(q, id), 'board status')

const clash = (name: string) => conflict(`The board already has a status named "${name}".`)

export const getBoardStatusFor = async (deps: Deps, actor: Actor, id: string) => statusView(await visibleStatus(deps.db.q, actor, id))

/** Statuses of the boards the caller sees, or of one board. */
export function listBoardStatuses(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleStatusesQuery(q, actor.user, params.board),
    BOARD_STATUS_LIST,
    params,
    (rows: BoardStatusesTable[], expand) => expandBoard(q, rows.map(statusView), expand),
    { anchored: Boolean(params.board) },
  )
}

export function createBoardStatus(deps: Deps, actor: Actor, input: CreateBoardStatusInput) {
  return deps.db.tx(async (tx) => {
    const board = await visibleBoard(tx.q, actor, input.board)
    await lockBoard(tx.q, board.id) // two names that fold alike, sent at once, cannot both pass the check
    if (await getStatusByName(tx.q, board.id, input.name)) throw clash(input.name)
    const at = isoAt(deps.clock.now())
    const row: BoardStatusesTable = {
      id: newId(),
      board_id: board.id,
      name: input.name,
      category: input.category,
      color: input.color ?? null,
      position: input.position ?? (await nextStatusPosition(tx.q, board.id)),
      created_at: at,
      updated_at: at,
    }
    await insertStatus(tx.q, row)
    await emitEvent(deps, tx, { name: 'board_status.created', boardId: board.id, data: statusEventData(row, board), actor })
    return statusView(row)
  })
}

/** Cards settled per transaction after lists changed category (a list's move takes cascadeChunk in src/db/database.ts). */
const SETTLE_CHUNK = 250

/**
 * After lists changed category (from what each had to `to`), their cards are completed or re-opened by the completion
 * rule, a chunk per transaction, each card with its events; a chunk stops unless the list still has that category.
 */
async function settleLists(deps: Deps, actor: Actor, lists: readonly ListsTable[], to: ListsTable['category']): Promise<void> {
  for (const list of lists) {
    const completed = completionAfterMove(list.category, to)
    if (completed === undefined) continue
    await inChunks(deps.db, SETTLE_CHUNK, async (tx, size) => {
      const now = await getList(tx.q, list.id)
      return now && (now.category === 'completed') === completed ? settleCardsOfList(deps, tx, actor, list.id, completed, size) : 0
    })
  }
}

/**
 * A rename or a new category announces each card (not in the trash) of the lists bound to the status with card.updated
 * naming `status`, set-based (a chunk of cards per insert of events) in the transaction of the change; a new category
 * is carried to those lists at once, and their cards then settle by the completion rule a chunk per transaction.
 */
export async function updateBoardStatus(deps: Deps, actor: Actor, id: string, input: UpdateBoardStatusInput) {
  const { view, lists } = await deps.db.tx(async (tx) => {
    const status = await visibleStatus(tx.q, actor, id)
    const board = await visibleBoard(tx.q, actor, status.board_id)
    await lockBoard(tx.q, board.id)
    if (input.name !== undefined) {
      const other = await getStatusByName(tx.q, status.board_id, input.name)
      if (other && other.id !== id) throw clash(input.name)
    }
    const at = isoAt(deps.clock.now())
    const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
    await updateStatusRow(tx.q, id, { ...set, updated_at: at })
    const recategorized = input.category !== undefined && input.category !== status.category
    const renamed = input.name !== undefined && input.name !== status.name
    const bound = recategorized || renamed ? await listsWithStatus(tx.q, id) : []
    if (recategorized && bound.length) await rebindLists(tx.q, id, id, input.category!, at)
    const row = (await getStatus(tx.q, id))!
    await emitEvent(deps, tx, { name: 'board_status.updated', boardId: board.id, data: statusEventData(row, board), actor })
    // What the cards of its lists show as their `status` changed: each is announced, in this transaction.
    await announceStatusOfListsIn(
      deps,
      tx,
      actor,
      bound.map((l) => l.id),
    )
    return { view: statusView(row), lists: recategorized ? bound : [] }
  })
  if (lists.length) await settleLists(deps, actor, lists, view.category)
  return view
}

/**
 * 409 while lists are bound to the status, unless `moveTo` names another status of the board to bind them to; their
 * cards then follow the completion rule and are announced with card.updated naming `status`.
 */
export async function deleteBoardStatus(deps: Deps, actor: Actor, id: string, moveTo: string | undefined): Promise<void> {
  const moved = await deps.db.tx(async (tx) => {
    const status = await visibleStatus(tx.q, actor, id)
    const board = await visibleBoard(tx.q, actor, status.board_id)
    await lockBoard(tx.q, board.id)
    const target = moveTo === undefined ? undefined : await getStatus(tx.q, moveTo)
    if (moveTo !== undefined && (!target || target.board_id !== status.board_id || target.id === id))
      throw invalidField('move_to', 'move_to must be another status of the same board.')
    const lists = await listsWithStatus(tx.q, id)
    if (lists.length && !target)
      throw conflict(`${lists.length} list(s) of the board have this status; pass move_to=<status id> to give them another one first.`)
    if (lists.length) await rebindLists(tx.q, id, target!.id, target!.category, isoAt(deps.clock.now()))
    if (!(await deleteStatusRow(tx.q, id))) throw notFound('board status')
    await emitEvent(deps, tx, { name: 'board_status.deleted', boardId: board.id, data: statusEventData(status, board), actor })
    return { lists, to: target?.category }
  })
  if (moved.to !== undefined) await settleLists(deps, actor, moved.lists, moved.to)
  for (const list of moved.lists) await announceStatusOfList(deps, actor, list.id)
}
