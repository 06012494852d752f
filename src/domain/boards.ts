// Boards: create with default lists, update, delete, clone, and membership.
import type { ListsTable } from '../db/types.js'
import { isoAt } from '../clock.js'
import { newId } from '../ids.js'
import { conflict, notFound, unprocessable } from '../http/errors.js'
import {
  addBoardMember, deleteBoardRow, getBoard, insertBoard, insertList, insertTag, isBoardMember, listsOfBoard,
  removeBoardMember, tagsOfBoard, updateBoardRow,
} from '../store/boards.js'
import { getUser } from '../store/users.js'
import { qb } from '../db/sql.js'
import { emitEvent } from '../events/emit.js'
import { pauseSubscriptionsOnlyOn } from '../store/webhooks.js'
import { boardForMembershipChange, visibleBoard } from './access.js'
import { announceKeyChanges, deleteAllCards } from './cards.js'
import { listEventData } from './lists.js'
import type { Actor, Deps } from './context.js'
import { userView, type UserView } from './users.js'
import { boardView, listView, tagView } from './views.js'

const DEFAULT_LISTS: [string, ListsTable['category']][] = [['To do', 'unstarted'], ['In progress', 'started'], ['Done', 'completed']]

/** `Marketing site` → `MAR`; used when no key_prefix is given. */
export function derivePrefix(name: string): string {
  const letters = name.toUpperCase().replace(/[^A-Z0-9]/g, '').replace(/^[0-9]+/, '')
  return letters.slice(0, 3) || 'TSK'
}

export interface BoardInput { name: string; key_prefix?: string; description?: string; lists?: string[] }

export function createBoard(deps: Deps, actor: Actor, input: BoardInput) {
  const { sql } = deps
  return sql.tx(() => {
    const at = isoAt(deps.clock.now())
    const board = { id: newId(), name: input.name, description: input.description ?? '', key_prefix: input.key_prefix ?? derivePrefix(input.name), next_key: 1, created_by: actor.user.id, created_at: at, updated_at: at }
    insertBoard(sql, board)
    addBoardMember(sql, board.id, actor.user.id, at)
    const specs: [string, ListsTable['category']][] = input.lists
      ? input.lists.map((name, i, all) => [name, i === all.length - 1 && all.length > 1 ? 'completed' : i === 0 ? 'unstarted' : 'started'])
      : DEFAULT_LISTS
    const lists = specs.map(([name, category], i) => {
      const row: ListsTable = { id: newId(), board_id: board.id, name, position: i + 1, category, created_at: at, updated_at: at }
      insertList(sql, row)
      return row
    })
    return { board: boardView(board), lists: lists.map(listView) }
  })
}

export function getBoardFor(deps: Deps, actor: Actor, id: string) {
  return boardView(visibleBoard(deps.sql, actor, id))
}

export function updateBoard(deps: Deps, actor: Actor, id: string, input: { name?: string; description?: string; key_prefix?: string }) {
  const { sql } = deps
  return sql.tx(() => {
    const board = visibleBoard(sql, actor, id)
    const at = isoAt(deps.clock.now())
    updateBoardRow(sql, id, { ...input, updated_at: at })
    if (input.key_prefix && input.key_prefix !== board.key_prefix) {
      // Keys follow the board's prefix; their numbers never change. Receivers that stored keys hear of each one.
      sql.run(qb.updateTable('cards').set((eb) => ({ key: eb.fn('concat', [eb.val(`${input.key_prefix}-`), eb.ref('key_num')]) })).where('board_id', '=', id))
      announceKeyChanges(deps, actor, id)
    }
    return boardView(getBoard(sql, id)!)
  })
}

export function deleteBoard(deps: Deps, actor: Actor, id: string): void {
  deps.sql.tx(() => {
    const board = visibleBoard(deps.sql, actor, id)
    pauseSubscriptionsOnlyOn(deps.sql, id, isoAt(deps.clock.now()))
    // Receivers keep copies of cards and lists: each one gets its deletion event, in this same transaction.
    deleteAllCards(deps, actor, id)
    for (const list of listsOfBoard(deps.sql, id)) emitEvent(deps, { name: 'list.deleted', boardId: id, data: listEventData(list, board, actor) })
    deleteBoardRow(deps.sql, id)
  })
}

/** Copies a board's lists and tags (not its cards) into a new board the caller belongs to. */
export function cloneBoard(deps: Deps, actor: Actor, id: string, input: { name?: string }) {
  const { sql } = deps
  return sql.tx(() => {
    const source = visibleBoard(sql, actor, id)
    const at = isoAt(deps.clock.now())
    const board = { ...source, id: newId(), name: input.name ?? `${source.name} (copy)`, next_key: 1, created_by: actor.user.id, created_at: at, updated_at: at }
    insertBoard(sql, board)
    addBoardMember(sql, board.id, actor.user.id, at)
    const lists = listsOfBoard(sql, source.id).map((l) => ({ ...l, id: newId(), board_id: board.id, created_at: at, updated_at: at }))
    lists.forEach((l) => insertList(sql, l))
    const tags = tagsOfBoard(sql, source.id).map((t) => ({ ...t, id: newId(), board_id: board.id, created_at: at, updated_at: at }))
    tags.forEach((t) => insertTag(sql, t))
    return { board: boardView(board), lists: lists.map(listView), tags: tags.map(tagView), xattr_fields: [] as unknown[] }
  })
}

// Email stays out of event data: receivers are outside the workspace and the catalog promises { id, name, kind }.
const memberEventData = (board: { id: string; name: string }, user: { id: string; name: string; kind: string }, actor: Actor) => ({
  board: { id: board.id, name: board.name }, user: { id: user.id, name: user.name, kind: user.kind }, actor: { id: actor.user.id, name: actor.user.name },
})

export function addMember(deps: Deps, actor: Actor, boardId: string, userId: string): UserView {
  const { sql } = deps
  return sql.tx(() => {
    const board = boardForMembershipChange(sql, actor, boardId)
    const user = getUser(sql, userId)
    if (!user) throw unprocessable('The request body is not valid.', [{ path: 'user', message: 'No such user.' }])
    if (isBoardMember(sql, boardId, userId)) throw conflict('The user is already a member of this board.')
    addBoardMember(sql, boardId, userId, isoAt(deps.clock.now()))
    emitEvent(deps, { name: 'board.member_added', boardId, data: memberEventData(board, user, actor) })
    return userView(user)
  })
}

export function removeMember(deps: Deps, actor: Actor, boardId: string, userId: string): void {
  const { sql } = deps
  sql.tx(() => {
    const board = boardForMembershipChange(sql, actor, boardId)
    const user = getUser(sql, userId)
    if (!user || !isBoardMember(sql, boardId, userId)) throw notFound('board member')
    removeBoardMember(sql, boardId, userId)
    emitEvent(deps, { name: 'board.member_removed', boardId, data: memberEventData(board, user, actor) })
  })
}
