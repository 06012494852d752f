// Boards: create with default lists, list, update, delete, clone, and membership.
import { type Actor, isAdmin } from '../../access/roles.js'
import { visibleBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { BoardsTable, ListsTable, UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, forbidden, notFound, unprocessable } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { deleteAllCards, rekeyCards } from '../cards/service.js'
import { listEventData, listView } from '../lists/present.js'
import { insertList, listsOfBoard, listsOfBoards } from '../lists/store.js'
import { tagView } from '../tags/present.js'
import { insertTag, tagsOfBoard } from '../tags/store.js'
import { userView } from '../users/present.js'
import { getUser } from '../users/store.js'
import { pauseSubscriptionsOfBoard } from '../webhooks/service.js'
import { boardView, boardViews } from './present.js'
import { BOARD_LIST, MEMBER_LIST } from './query.js'
import type { BoardView, CreateBoardInput, UpdateBoardInput } from './schema.js'
import {
  addBoardMember,
  boardMembersQuery,
  deleteBoardRow,
  getBoard,
  insertBoard,
  isBoardMember,
  membersOfBoards,
  removeBoardMember,
  updateBoardRow,
  visibleBoardsQuery,
} from './store.js'

const DEFAULT_LISTS: [string, ListsTable['category']][] = [
  ['To do', 'unstarted'],
  ['In progress', 'started'],
  ['Done', 'completed'],
]

/** `Marketing site` → `MAR`; used when no key_prefix is given. */
export function derivePrefix(name: string): string {
  const letters = name
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .replace(/^[0-9]+/, '')
  return letters.slice(0, 3) || 'TSK'
}

const creatorOf = (actor: Actor) => ({ id: actor.user.id, name: actor.user.name })

export function createBoard(deps: Deps, actor: Actor, input: CreateBoardInput) {
  const { sql } = deps
  return sql.tx(() => {
    const at = isoAt(deps.clock.now())
    const board: BoardsTable = {
      id: newId(),
      name: input.name,
      description: input.description ?? '',
      key_prefix: input.key_prefix ?? derivePrefix(input.name),
      next_key: 1,
      created_by: actor.user.id,
      created_at: at,
      updated_at: at,
    }
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
    return { board: boardView(board, creatorOf(actor)), lists: lists.map(listView) }
  })
}

export const getBoardFor = (deps: Deps, actor: Actor, id: string) => boardViews(deps.sql, [visibleBoard(deps.sql, actor, id)])[0]

/** The boards the caller is a member of; `expand=lists,members` inline their lists and members. */
export function listBoards(deps: Deps, actor: Actor, params: ListParams) {
  return listPage(deps.sql, visibleBoardsQuery(actor.user.id), BOARD_LIST, params, (rows: BoardsTable[], expand) => {
    const views: (BoardView & { expand?: Record<string, unknown> })[] = boardViews(deps.sql, rows).map((b) => (expand.size ? { ...b, expand: {} } : b))
    const ids = rows.map((r) => r.id)
    if (expand.has('lists')) {
      const lists = listsOfBoards(deps.sql, ids)
      for (const v of views) v.expand!.lists = lists.filter((l) => l.board_id === v.id).map(listView)
    }
    if (expand.has('members')) {
      const members = membersOfBoards(deps.sql, ids)
      for (const v of views) v.expand!.members = members.filter((m) => m.board_id === v.id).map((m) => userView(m))
    }
    return views
  })
}

export function updateBoard(deps: Deps, actor: Actor, id: string, input: UpdateBoardInput) {
  const { sql } = deps
  return sql.tx(() => {
    const board = visibleBoard(sql, actor, id)
    updateBoardRow(sql, id, { ...input, updated_at: isoAt(deps.clock.now()) })
    if (input.key_prefix && input.key_prefix !== board.key_prefix) rekeyCards(deps, actor, id, input.key_prefix)
    return boardViews(sql, [getBoard(sql, id)!])[0]
  })
}

export function deleteBoard(deps: Deps, actor: Actor, id: string): void {
  deps.sql.tx(() => {
    const board = visibleBoard(deps.sql, actor, id)
    pauseSubscriptionsOfBoard(deps, id)
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
    const board = {
      ...source,
      id: newId(),
      name: input.name ?? `${source.name} (copy)`,
      next_key: 1,
      created_by: actor.user.id,
      created_at: at,
      updated_at: at,
    }
    insertBoard(sql, board)
    addBoardMember(sql, board.id, actor.user.id, at)
    const lists = listsOfBoard(sql, source.id).map((l) => ({ ...l, id: newId(), board_id: board.id, created_at: at, updated_at: at }))
    lists.forEach((l) => insertList(sql, l))
    const tags = tagsOfBoard(sql, source.id).map((t) => ({ ...t, id: newId(), board_id: board.id, created_at: at, updated_at: at }))
    tags.forEach((t) => insertTag(sql, t))
    return { board: boardView(board, creatorOf(actor)), lists: lists.map(listView), tags: tags.map(tagView), xattr_fields: [] as unknown[] }
  })
}

/** The members of a board the caller can see. */
export function listMembers(deps: Deps, actor: Actor, boardId: string, params: ListParams) {
  visibleBoard(deps.sql, actor, boardId)
  return listPage(deps.sql, boardMembersQuery(boardId), MEMBER_LIST, params, (rows: UsersTable[]) => rows.map(userView))
}

/** Membership changes: workspace owners/admins on any board, members with a write token on theirs. */
function boardForMembershipChange(deps: Deps, actor: Actor, boardId: string): BoardsTable {
  if (isAdmin(actor)) {
    const board = getBoard(deps.sql, boardId)
    if (!board) throw notFound('board')
    return board
  }
  const board = visibleBoard(deps.sql, actor, boardId)
  if (actor.permission === 'read') throw forbidden('This token is read only.')
  return board
}

// Email stays out of event data: receivers are outside the workspace and the catalog promises { id, name, kind }.
const memberEventData = (board: { id: string; name: string }, user: UsersTable, actor: Actor) => ({
  board: { id: board.id, name: board.name },
  user: { id: user.id, name: user.name, kind: user.kind },
  actor: { id: actor.user.id, name: actor.user.name },
})

export function addMember(deps: Deps, actor: Actor, boardId: string, userId: string) {
  const { sql } = deps
  return sql.tx(() => {
    const board = boardForMembershipChange(deps, actor, boardId)
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
    const board = boardForMembershipChange(deps, actor, boardId)
    const user = getUser(sql, userId)
    if (!user || !isBoardMember(sql, boardId, userId)) throw notFound('board member')
    removeBoardMember(sql, boardId, userId)
    emitEvent(deps, { name: 'board.member_removed', boardId, data: memberEventData(board, user, actor) })
  })
}
