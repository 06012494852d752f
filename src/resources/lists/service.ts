// Lists: create, read, update, and delete (never the last list, never one with cards unless they move).
import type { Actor } from '../../access/roles.js'
import { visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { ListsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, unprocessable } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { expandBoard } from '../boards/present.js'
import { moveAllCards } from '../cards/service.js'
import { countCardsInList } from '../cards/store.js'
import { listEventData, listView } from './present.js'
import { LIST_LIST } from './query.js'
import type { CreateListInput, UpdateListInput } from './schema.js'
import { deleteListRow, getList, insertList, listsOfBoard, maxListPosition, updateListRow, visibleListsQuery } from './store.js'

export const visibleList = (deps: Deps, actor: Actor, id: string): ListsTable => visibleOnBoard(deps.sql, actor, getList(deps.sql, id), 'list')

export const getListFor = (deps: Deps, actor: Actor, id: string) => listView(visibleList(deps, actor, id))

/** Lists of the boards the caller belongs to, or of one board. */
export function listLists(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  return listPage(
    deps.sql,
    visibleListsQuery(actor.user.id, params.board),
    LIST_LIST,
    params,
    (rows: ListsTable[], expand) => expandBoard(deps.sql, rows.map(listView), expand),
    { anchored: Boolean(params.board) },
  )
}

export function createList(deps: Deps, actor: Actor, input: CreateListInput) {
  const { sql } = deps
  return sql.tx(() => {
    const board = visibleBoard(sql, actor, input.board)
    const at = isoAt(deps.clock.now())
    const row: ListsTable = {
      id: newId(),
      board_id: board.id,
      name: input.name,
      category: input.category ?? 'unstarted',
      position: input.position ?? maxListPosition(sql, board.id) + 1,
      created_at: at,
      updated_at: at,
    }
    insertList(sql, row)
    emitEvent(deps, { name: 'list.created', boardId: board.id, data: listEventData(row, board, actor) })
    return listView(row)
  })
}

export function updateList(deps: Deps, actor: Actor, id: string, input: UpdateListInput) {
  const { sql } = deps
  return sql.tx(() => {
    visibleList(deps, actor, id)
    const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
    updateListRow(sql, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    return listView(getList(sql, id)!)
  })
}

export function deleteList(deps: Deps, actor: Actor, id: string, moveTo: string | undefined): void {
  const { sql } = deps
  sql.tx(() => {
    const list = visibleList(deps, actor, id)
    const board = visibleBoard(sql, actor, list.board_id)
    if (listsOfBoard(sql, list.board_id).length === 1) throw conflict('A board keeps at least one list; this is its last one.')
    if (moveTo !== undefined) {
      const target = getList(sql, moveTo)
      if (!target || target.board_id !== list.board_id || target.id === list.id) {
        throw unprocessable('move_to must be another list of the same board.', [{ path: 'move_to', message: 'Not another list of this board.' }])
      }
      moveAllCards(deps, actor, list.id, target.id)
    } else if (countCardsInList(sql, list.id) > 0) {
      throw conflict('The list still holds cards; pass move_to=<list id> to move them first.')
    }
    deleteListRow(sql, list.id)
    emitEvent(deps, { name: 'list.deleted', boardId: board.id, data: listEventData(list, board, actor) })
  })
}
