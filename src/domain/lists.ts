// Lists: create, update, and delete (never the last list, never one with cards unless they move).
import type { ListsTable } from '../db/types.js'
import { isoAt } from '../clock.js'
import { newId } from '../ids.js'
import { conflict, notFound, unprocessable } from '../http/errors.js'
import { deleteListRow, getList, insertList, listsOfBoard, maxListPosition, updateListRow } from '../store/boards.js'
import { countCardsInList } from '../store/cards.js'
import { moveAllCards } from './cards.js'
import { emitEvent } from '../events/emit.js'
import { visibleBoard } from './access.js'
import type { Actor, Deps } from './context.js'
import { listView } from './views.js'

type Category = ListsTable['category']

export function visibleList(deps: Deps, actor: Actor, id: string): ListsTable {
  const list = getList(deps.sql, id)
  if (!list) throw notFound('list')
  visibleBoard(deps.sql, actor, list.board_id, 'list')
  return list
}

export const listEventData = (list: ListsTable, board: { id: string; name: string }, actor: Actor) => ({
  id: list.id, name: list.name, category: list.category, position: list.position, board: { id: board.id, name: board.name },
  actor: { id: actor.user.id, name: actor.user.name },
})

export function createList(deps: Deps, actor: Actor, input: { board: string; name: string; category?: Category; position?: number }) {
  const { sql } = deps
  return sql.tx(() => {
    const board = visibleBoard(sql, actor, input.board)
    const at = isoAt(deps.clock.now())
    const row: ListsTable = {
      id: newId(), board_id: board.id, name: input.name, category: input.category ?? 'unstarted',
      position: input.position ?? maxListPosition(sql, board.id) + 1, created_at: at, updated_at: at,
    }
    insertList(sql, row)
    emitEvent(deps, { name: 'list.created', boardId: board.id, data: listEventData(row, board, actor) })
    return listView(row)
  })
}

export function updateList(deps: Deps, actor: Actor, id: string, input: { name?: string; position?: number; category?: Category }) {
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
