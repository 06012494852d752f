// Lists: create, read, update, and delete (never the last list, never one with cards unless they move).
import type { Actor } from '../../access/roles.js'
import { visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import { cascadeChunk, inChunks, type Q } from '../../db/database.js'
import { distinctPosition } from '../../db/positions.js'
import type { ListsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, invalidField, unprocessable } from '../../errors.js'
import { getStatus, recategorizeStatus } from '../board-statuses/published.js'
import { statusEventData } from '../board-statuses/present.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { expandBoard } from '../boards/present.js'
import { lockBoard } from '../boards/published.js'
import { completionAfterMove } from '../cards/completion.js'
import { announceStatusOfList, moveCardsOfList, settleCardsOfList } from '../cards/service.js'
import { countCardsInList } from '../cards/published.js'
import { listEventData, listView } from './present.js'
import { LIST_LIST } from './query.js'
import type { CreateListInput, UpdateListInput } from './schema.js'
import { deleteListRow, getList, insertList, listsOfBoard, updateListRow, visibleListsQuery } from './store.js'

export const visibleList = async (q: Q, actor: Actor, id: string): Promise<ListsTable> => visibleOnBoard(q, actor, await getList(q, id), 'list')

/** The status a list is bound to, checked: one of the board's (422 naming `status`), and its category the one asked, if any. */
async function statusFor(q: Q, boardId: string, statusId: string, category: ListsTable['category'] | undefined) {
  const status = await getStatus(q, statusId)
  if (status?.board_id !== boardId) throw invalidField('status', 'No such status on this board.')
  if (category !== undefined && category !== status.category)
    throw invalidField('category', `A list bound to a status has its category (${status.category}); leave category out, or bind no status.`)
  return status
}

export const getListFor = async (deps: Deps, actor: Actor, id: string) => listView(await visibleList(deps.db.q, actor, id))

/** Lists of the boards the caller belongs to, or of one board. */
export function listLists(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleListsQuery(q, actor.user, params.board),
    LIST_LIST,
    params,
    async (rows: ListsTable[], expand) => expandBoard(q, rows.map(listView), expand),
    {
      anchored: Boolean(params.board),
    },
  )
}

export function createList(deps: Deps, actor: Actor, input: CreateListInput) {
  return deps.db.tx(async (tx) => {
    const board = await visibleBoard(tx.q, actor, input.board)
    const status = input.status ? await statusFor(tx.q, board.id, input.status, input.category) : undefined
    const at = isoAt(deps.clock.now())
    const id = newId()
    const row: ListsTable = {
      id,
      board_id: board.id,
      name: input.name,
      category: status?.category ?? input.category ?? 'unstarted',
      status_id: status?.id ?? null,
      position: await distinctPosition(tx.q, 'lists', board.id, id, input.position),
      created_at: at,
      updated_at: at,
    }
    await insertList(tx.q, row)
    await emitEvent(deps, tx, { name: 'list.created', boardId: board.id, data: listEventData(row, board), actor })
    return listView(row)
  })
}

/**
 * A category changed into or out of `completed` completes or re-opens the list's cards (the completion rule of the
 * cards family), a chunk per transaction, each card with its events; each chunk stops unless the list's category
 * still asks for it (another change may have undone this one).
 */
export async function updateList(deps: Deps, actor: Actor, id: string, input: UpdateListInput) {
  const { view, from, to, rebound } = await deps.db.tx(async (tx) => {
    const { q } = tx
    const list = await visibleList(q, actor, id)
    const { status: statusId, ...fields } = input
    const set: Partial<ListsTable> = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
    if (statusId) {
      const status = await statusFor(q, list.board_id, statusId, input.category)
      Object.assign(set, { status_id: status.id, category: status.category })
    } else if (statusId === null) set.status_id = null
    else if (input.category !== undefined && list.status_id) {
      // A list alone on its status takes the status along to the new category; one sharing it keeps the status's.
      const taken = await recategorizeStatus(q, list.status_id, list.id, input.category, isoAt(deps.clock.now()))
      if (!taken) await statusFor(q, list.board_id, list.status_id, input.category)
      else if (taken.changed) {
        const board = await visibleBoard(q, actor, list.board_id)
        await emitEvent(deps, tx, { name: 'board_status.updated', boardId: board.id, data: statusEventData(taken.status, board), actor })
      }
    }
    if (input.position !== undefined) set.position = await distinctPosition(q, 'lists', list.board_id, id, input.position)
    await updateListRow(q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    const rebound = set.status_id !== undefined && set.status_id !== list.status_id
    return { view: listView((await getList(q, id))!), from: list.category, to: set.category, rebound }
  })
  if (rebound) await announceStatusOfList(deps, actor, id)
  const completed = to === undefined ? undefined : completionAfterMove(from, to)
  if (completed !== undefined) {
    await inChunks(deps.db, cascadeChunk(deps.db), async (tx, size) =>
      ((await visibleList(tx.q, actor, id)).category === 'completed') === completed ? settleCardsOfList(deps, tx, actor, id, completed, size) : 0,
    )
  }
  return view
}

/** The list, its board and its move_to target, checked; 404, 409 and 422 as the route documents. */
async function checkDeletion(q: Q, actor: Actor, id: string, moveTo: string | undefined) {
  const list = await visibleList(q, actor, id)
  const board = await visibleBoard(q, actor, list.board_id)
  await lockBoard(q, board.id) // two deletions on one board take turns, so they cannot both leave the other list
  if ((await listsOfBoard(q, list.board_id)).length === 1) throw conflict('A board keeps at least one list; this is its last one.')
  if (moveTo !== undefined) {
    const target = await getList(q, moveTo)
    if (!target || target.board_id !== list.board_id || target.id === list.id) {
      throw unprocessable('move_to must be another list of the same board.', [{ path: 'move_to', message: 'Not another list of this board.' }])
    }
  } else if ((await countCardsInList(q, list.id)) > 0) {
    throw conflict('The list still holds cards; pass move_to=<list id> to move them first.')
  }
  return { list, board }
}

/**
 * With move_to, the cards move a chunk per transaction (each with its card.moved event); the list goes in a last
 * transaction that checks everything again and moves any card added meanwhile.
 */
export async function deleteList(deps: Deps, actor: Actor, id: string, moveTo: string | undefined): Promise<void> {
  await deps.db.tx(({ q }) => checkDeletion(q, actor, id, moveTo))
  if (moveTo !== undefined) {
    // Each chunk checks again that the caller may still see the list, so losing access stops the move.
    await inChunks(deps.db, cascadeChunk(deps.db), (tx, size) => moveCardsOfList(deps, tx, actor, id, moveTo, size, () => visibleList(tx.q, actor, id)))
  }
  await deps.db.tx(async (tx) => {
    const { list, board } = await checkDeletion(tx.q, actor, id, moveTo)
    const chunk = cascadeChunk(deps.db)
    if (moveTo !== undefined) while ((await moveCardsOfList(deps, tx, actor, id, moveTo, chunk)) === chunk);
    await deleteListRow(tx.q, list.id)
    await emitEvent(deps, tx, { name: 'list.deleted', boardId: board.id, data: listEventData(list, board), actor })
  })
}
