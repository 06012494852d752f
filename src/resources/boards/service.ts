// Boards: create with default lists, list, update, delete, clone, and membership.
import { type Actor, isAdmin } from '../../access/roles.js'
import { visibleBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import { inChunks, type Q } from '../../db/database.js'
import type { BoardsTable, ListsTable, UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, forbidden, notFound, unprocessable } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { deleteCardsOfBoard, rekeyCardsOfBoard } from '../cards/service.js'
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
  prefixesStartingWith,
  prefixHolder,
  reservePrefix,
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

/** Cards renamed or deleted per transaction when a board's prefix changes or the board is deleted. */
const CARD_CHUNK = 50

/** `Marketing site` → `MAR`; used when no key_prefix is given. */
export function derivePrefix(name: string): string {
  const letters = name
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .replace(/^[0-9]+/, '')
  return letters.slice(0, 3) || 'TSK'
}

const creatorOf = (actor: Actor) => ({ id: actor.user.id, name: actor.user.name })

const prefixTaken = (prefix: string) =>
  unprocessable('The request body is not valid.', [
    { path: 'key_prefix', message: `${prefix} is already used in this workspace (by a board now or before); card keys are never issued twice.` },
  ])

/**
 * The prefix a new board gets, reserved for it: the one asked for (422 when taken), else one derived from the name,
 * with a number added on a clash (MAR, MAR2, MAR3, ...).
 */
async function reserveNewPrefix(q: Q, boardId: string, at: string, asked: string | undefined, name: string): Promise<string> {
  if (asked !== undefined) {
    if (!(await reservePrefix(q, asked, boardId, at))) throw prefixTaken(asked)
    return asked
  }
  const base = derivePrefix(name)
  // The taken ones in one query, so the thousandth "Project" board costs no thousand round trips.
  const taken = new Set(await prefixesStartingWith(q, base))
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base.slice(0, 10 - String(n).length)}${n}`
    if (!taken.has(candidate) && (await reservePrefix(q, candidate, boardId, at))) return candidate
  }
}

/** A new board row with a prefix of its own, and the caller as its first member. */
async function insertNewBoard(
  q: Q,
  actor: Actor,
  at: string,
  fields: Pick<BoardsTable, 'name' | 'description'> & { key_prefix?: string },
): Promise<BoardsTable> {
  const id = newId()
  const key_prefix = await reserveNewPrefix(q, id, at, fields.key_prefix, fields.name)
  const board: BoardsTable = { id, ...fields, key_prefix, next_key: 1, created_by: actor.user.id, created_at: at, updated_at: at }
  await insertBoard(q, board)
  await addBoardMember(q, board.id, actor.user.id, at)
  return board
}

export function createBoard(deps: Deps, actor: Actor, input: CreateBoardInput) {
  return deps.db.tx(async ({ q }) => {
    const at = isoAt(deps.clock.now())
    const board = await insertNewBoard(q, actor, at, {
      name: input.name,
      description: input.description ?? '',
      key_prefix: input.key_prefix,
    })
    const specs: [string, ListsTable['category']][] = input.lists
      ? input.lists.map((name, i, all) => [name, i === all.length - 1 && all.length > 1 ? 'completed' : i === 0 ? 'unstarted' : 'started'])
      : DEFAULT_LISTS
    const lists = specs.map(([name, category], i): ListsTable => ({
      id: newId(),
      board_id: board.id,
      name,
      position: i + 1,
      category,
      created_at: at,
      updated_at: at,
    }))
    for (const row of lists) await insertList(q, row)
    return { board: boardView(board, creatorOf(actor)), lists: lists.map(listView) }
  })
}

export const getBoardFor = async (deps: Deps, actor: Actor, id: string) => {
  const { q } = deps.db
  return (await boardViews(q, [await visibleBoard(q, actor, id)]))[0]
}

/** The boards the caller is a member of; `expand=lists,members` inline their lists and members. */
export function listBoards(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, visibleBoardsQuery(q, actor.user.id), BOARD_LIST, params, async (rows: BoardsTable[], expand) => {
    const views: (BoardView & { expand?: Record<string, unknown> })[] = (await boardViews(q, rows)).map((b) => (expand.size ? { ...b, expand: {} } : b))
    const ids = rows.map((r) => r.id)
    if (expand.has('lists')) {
      const lists = await listsOfBoards(q, ids)
      for (const v of views) v.expand!.lists = lists.filter((l) => l.board_id === v.id).map(listView)
    }
    if (expand.has('members')) {
      const members = await membersOfBoards(q, ids)
      for (const v of views) v.expand!.members = members.filter((m) => m.board_id === v.id).map((m) => userView(m))
    }
    return views
  })
}

/** A new key prefix renames every card key: the board row first, then the cards a chunk per transaction, each announced. */
export async function updateBoard(deps: Deps, actor: Actor, id: string, input: UpdateBoardInput) {
  const board = await deps.db.tx(async ({ q }) => {
    const current = await visibleBoard(q, actor, id)
    const at = isoAt(deps.clock.now())
    // A new prefix is reserved for this board for good; one of its own earlier prefixes may come back, and its current
    // one is always fine (a board from before reservations may share it with an older board).
    const asked = input.key_prefix
    if (asked && asked !== current.key_prefix && !(await reservePrefix(q, asked, id, at)) && (await prefixHolder(q, asked)) !== id) {
      throw prefixTaken(asked)
    }
    await updateBoardRow(q, id, { ...input, updated_at: at })
    return (await getBoard(q, id))!
  })
  // Also when the prefix is unchanged: a rename a crash interrupted is finished by sending the prefix again.
  if (input.key_prefix) {
    // Each chunk renames to the prefix the board has now, so two renames at once still end on the board's last prefix.
    await inChunks(deps.db, CARD_CHUNK, async (tx, size) => rekeyCardsOfBoard(deps, tx, actor, id, (await visibleBoard(tx.q, actor, id)).key_prefix, size))
  }
  return (await boardViews(deps.db.q, [board]))[0]
}

/** Receivers keep copies of cards and lists: each one gets its deletion event. The cards go a chunk per transaction. */
export async function deleteBoard(deps: Deps, actor: Actor, id: string): Promise<void> {
  await deps.db.tx(async ({ q }) => {
    await visibleBoard(q, actor, id)
    await pauseSubscriptionsOfBoard(deps, q, id)
  })
  await inChunks(deps.db, CARD_CHUNK, async (tx, size) => {
    await visibleBoard(tx.q, actor, id)
    return deleteCardsOfBoard(deps, tx, actor, id, size)
  })
  await deps.db.tx(async (tx) => {
    const board = await visibleBoard(tx.q, actor, id)
    while ((await deleteCardsOfBoard(deps, tx, actor, id, CARD_CHUNK)) === CARD_CHUNK);
    for (const list of await listsOfBoard(tx.q, id)) await emitEvent(deps, tx, { name: 'list.deleted', boardId: id, data: listEventData(list, board, actor) })
    await deleteBoardRow(tx.q, id)
  })
}

/** Copies a board's lists and tags (not its cards) into a new board the caller belongs to. */
export function cloneBoard(deps: Deps, actor: Actor, id: string, input: { name?: string }) {
  return deps.db.tx(async ({ q }) => {
    const source = await visibleBoard(q, actor, id)
    const at = isoAt(deps.clock.now())
    const board = await insertNewBoard(q, actor, at, {
      name: input.name ?? `${source.name} (copy)`,
      description: source.description,
    })
    const lists = (await listsOfBoard(q, source.id)).map((l) => ({ ...l, id: newId(), board_id: board.id, created_at: at, updated_at: at }))
    for (const l of lists) await insertList(q, l)
    const tags = (await tagsOfBoard(q, source.id)).map((t) => ({ ...t, id: newId(), board_id: board.id, created_at: at, updated_at: at }))
    for (const t of tags) await insertTag(q, t)
    return { board: boardView(board, creatorOf(actor)), lists: lists.map(listView), tags: tags.map(tagView), xattr_fields: [] as unknown[] }
  })
}

/** The members of a board the caller can see. */
export async function listMembers(deps: Deps, actor: Actor, boardId: string, params: ListParams) {
  const { q } = deps.db
  await visibleBoard(q, actor, boardId)
  return listPage(deps.db, boardMembersQuery(q, boardId), MEMBER_LIST, params, async (rows: UsersTable[]) => rows.map(userView))
}

/** Membership changes: workspace owners/admins on any board, members with a write token on theirs. */
async function boardForMembershipChange(q: Q, actor: Actor, boardId: string): Promise<BoardsTable> {
  if (isAdmin(actor)) {
    const board = await getBoard(q, boardId)
    if (!board) throw notFound('board')
    return board
  }
  const board = await visibleBoard(q, actor, boardId)
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
  return deps.db.tx(async (tx) => {
    const board = await boardForMembershipChange(tx.q, actor, boardId)
    const user = await getUser(tx.q, userId)
    if (!user) throw unprocessable('The request body is not valid.', [{ path: 'user', message: 'No such user.' }])
    // Decided by the insert itself, so of two requests at once only one adds the member and announces it.
    if (!(await addBoardMember(tx.q, boardId, userId, isoAt(deps.clock.now())))) throw conflict('The user is already a member of this board.')
    await emitEvent(deps, tx, { name: 'board.member_added', boardId, data: memberEventData(board, user, actor) })
    return userView(user)
  })
}

export function removeMember(deps: Deps, actor: Actor, boardId: string, userId: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const board = await boardForMembershipChange(tx.q, actor, boardId)
    const user = await getUser(tx.q, userId)
    if (!user || !(await removeBoardMember(tx.q, boardId, userId))) throw notFound('board member')
    await emitEvent(deps, tx, { name: 'board.member_removed', boardId, data: memberEventData(board, user, actor) })
  })
}
