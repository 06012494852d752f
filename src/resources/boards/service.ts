// Boards: create with default lists, list, update, delete, clone, and membership.
import { sightLimitedTo } from '../../access/records.js'
import { type Actor, isAdmin } from '../../access/roles.js'
import { boardInSight, type SeenBoard, visibleBoard } from '../../access/visibility.js'
import { DAY_MS, isoAt } from '../../clock.js'
import { inChunks, type Q } from '../../db/database.js'
import type { BoardStatusesTable, BoardsTable, ListsTable, UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { conflict, forbidden, invalidField, notFound, unprocessable } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { audit, type Operator, SYSTEM } from '../audit/record.js'
import { deleteCardsOfBoard, rekeyCardsOfBoard } from '../cards/service.js'
import { statusView } from '../board-statuses/present.js'
import { insertStatus } from '../board-statuses/published.js'
import { getFolder } from '../folders/published.js'
import { getGroup, membersOfGroups } from '../groups/published.js'
import { listEventData, listView } from '../lists/present.js'
import { insertList, listsOfBoard, listsOfBoards } from '../lists/published.js'
import { userView } from '../users/present.js'
import type { EventData } from '../../events/fields.js'
import { firstOwner, getUser } from '../users/published.js'
import { pauseSubscriptionsOfBoard } from '../webhooks/service.js'
import { getTemplateContent } from '../templates/published.js'
import { buildStructure, readStructure } from './structure.js'
import { boardView, boardViews } from './present.js'
import { BOARD_LIST, MEMBER_LIST } from './query.js'
import { type BoardRole, type BoardView, type CreateBoardInput, TRASH_DAYS, type UpdateBoardInput } from './schema.js'
import {
  addBoardMember,
  boardMembersQuery,
  boardsDueForPurge,
  countBoardAdmins,
  deleteBoardRow,
  getBoard,
  getBoardMember,
  insertBoard,
  lockBoard,
  memberRoles,
  membersOfBoards,
  prefixesStartingWith,
  leavePrefix,
  prefixHolder,
  removeBoardMember,
  reservePrefix,
  setBoardTrashed,
  setMemberRole,
  updateBoardRow,
  boardsQuery,
} from './store.js'

const DEFAULT_LISTS: [string, ListsTable['category']][] = [
  ['To do', 'unstarted'],
  ['In progress', 'started'],
  ['Done', 'completed'],
]

/** Cards renamed or deleted per transaction when a board's prefix changes or the board is deleted (a list's move takes cascadeChunk in src/db/database.ts). */
const CARD_CHUNK = 25

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

/** A new board row with a prefix of its own, and the caller as its first member and admin. */
async function insertNewBoard(
  q: Q,
  actor: Actor,
  at: string,
  fields: Pick<BoardsTable, 'name' | 'description' | 'folder_id'> & { key_prefix?: string },
): Promise<BoardsTable> {
  const id = newId()
  const key_prefix = await reserveNewPrefix(q, id, at, fields.key_prefix, fields.name)
  const board: BoardsTable = {
    id,
    ...fields,
    key_prefix,
    next_key: 1,
    created_by: actor.user.id,
    created_at: at,
    updated_at: at,
    trashed_at: null,
    trashed_by: null,
    purge_at: null,
  }
  await insertBoard(q, board)
  await addBoardMember(q, board.id, actor.user.id, at, 'admin')
  return board
}

/** A folder a board is put in: 422 naming `folder` when there is none such. */
async function checkFolder(q: Q, id: string | null | undefined): Promise<void> {
  if (id && !(await getFolder(q, id))) throw invalidField('folder', 'No such folder.')
}

/**
 * A new board's statuses, one per list name (names that differ only in case share one), with the lists bound to
 * them: each list takes its status's category.
 */
function statusesForLists(boardId: string, lists: ListsTable[], at: string): { statuses: BoardStatusesTable[]; lists: ListsTable[] } {
  const byName = new Map<string, BoardStatusesTable>()
  const bound = lists.map((l) => {
    const key = l.name.toLowerCase()
    let status = byName.get(key)
    if (!status) {
      status = { id: newId(), board_id: boardId, name: l.name, category: l.category, color: null, position: byName.size + 1, created_at: at, updated_at: at }
      byName.set(key, status)
    }
    return { ...l, category: status.category, status_id: status.id }
  })
  return { statuses: [...byName.values()], lists: bound }
}

export function createBoard(deps: Deps, actor: Actor, input: CreateBoardInput) {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const at = isoAt(deps.clock.now())
    await checkFolder(q, input.folder)
    if (input.template !== undefined) {
      if (input.lists !== undefined) throw invalidField('lists', 'A board from a template takes its lists from the template.')
      const content = await getTemplateContent(q, input.template)
      if (!content) throw invalidField('template', 'No such template.')
      const board = await insertNewBoard(q, actor, at, {
        name: input.name,
        description: input.description ?? '',
        key_prefix: input.key_prefix,
        folder_id: input.folder ?? null,
      })
      return { board: boardView(board, creatorOf(actor)), ...(await buildStructure(deps, tx, actor, board, content, at)) }
    }
    const board = await insertNewBoard(q, actor, at, {
      name: input.name,
      description: input.description ?? '',
      key_prefix: input.key_prefix,
      folder_id: input.folder ?? null,
    })
    const specs: [string, ListsTable['category']][] = input.lists
      ? input.lists.map((name, i, all) => [name, i === all.length - 1 && all.length > 1 ? 'completed' : i === 0 ? 'unstarted' : 'started'])
      : DEFAULT_LISTS
    const { statuses, lists } = statusesForLists(
      board.id,
      specs.map(([name, category], i): ListsTable => ({
        id: newId(),
        board_id: board.id,
        name,
        position: i + 1,
        category,
        created_at: at,
        updated_at: at,
        status_id: null,
      })),
      at,
    )
    for (const row of statuses) await insertStatus(q, row)
    for (const row of lists) await insertList(q, row)
    return { board: boardView(board, creatorOf(actor)), lists: lists.map(listView), statuses: statuses.map(statusView) }
  })
}

/** A board the caller sees, also in the trash (which the board's own routes show). */
/** Whether the board is in the trash (the automation runner stops a run whose board is). */
export const boardInTrash = async (q: Q, id: string): Promise<boolean> => Boolean((await getBoard(q, id))?.trashed_at)

export const getBoardFor = async (deps: Deps, actor: Actor, id: string) => {
  const { q } = deps.db
  return (await boardViews(q, [await boardInSight(q, actor, id)]))[0]
}

/** The boards the caller sees (owners and admins: every board), in the trash or out of it; `expand=lists,members` inline their lists and members. */
export function listBoards(deps: Deps, actor: Actor, params: ListParams & { trashed: boolean }) {
  const { q } = deps.db
  return listPage(deps.db, boardsQuery(q, sightLimitedTo(actor.user), params.trashed), BOARD_LIST, params, async (rows: BoardsTable[], expand) => {
    const views: (BoardView & { expand?: Record<string, unknown> })[] = (await boardViews(q, rows)).map((b) => (expand.size ? { ...b, expand: {} } : b))
    const ids = rows.map((r) => r.id)
    if (expand.has('lists')) {
      const lists = await listsOfBoards(q, ids)
      for (const v of views) v.expand!.lists = lists.filter((l) => l.board_id === v.id).map(listView)
    }
    if (expand.has('members')) {
      const members = await membersOfBoards(q, ids)
      for (const v of views) v.expand!.members = members.filter((m) => m.board_id === v.id).map((m) => ({ ...userView(m), board_role: m.board_role }))
    }
    return views
  })
}

const inTrash = () => conflict('The board is in the trash; restore it first (POST /v1/boards/{id}/restore).')

/**
 * The board for a change of its own (its name or prefix, the trash, its members): workspace owners and admins may, and
 * the board's admins; its other members get a 403, except to leave. The board row is locked first, so changes that
 * count its admins take turns. A board in the trash answers 409 unless `inTrashToo` (or `leaving`).
 */
async function boardToManage(q: Q, actor: Actor, id: string, action: string, opts: { inTrashToo?: boolean; leaving?: boolean } = {}): Promise<SeenBoard> {
  await lockBoard(q, id)
  const board = await boardInSight(q, actor, id)
  if (opts.leaving) return board
  if (!isAdmin(actor) && board.my_role !== 'admin') throw forbidden(`Only the board's admins and workspace owners and admins can ${action}.`)
  if (board.trashed_at !== null && !opts.inTrashToo) throw inTrash()
  return board
}

/** A new key prefix renames every card key: the board row first, then the cards a chunk per transaction, each announced. */
export async function updateBoard(deps: Deps, actor: Actor, id: string, input: UpdateBoardInput) {
  const board = await deps.db.tx(async ({ q }) => {
    const current = await boardToManage(q, actor, id, 'rename a board or change its prefix')
    const at = isoAt(deps.clock.now())
    // A new prefix is reserved for this board for good; one of its own earlier prefixes may come back, and its current
    // one is always fine (a board from before reservations may share it with an older board).
    const asked = input.key_prefix
    if (asked && asked !== current.key_prefix && !(await reservePrefix(q, asked, id, at)) && (await prefixHolder(q, asked)) !== id) {
      throw prefixTaken(asked)
    }
    // Under the board's lock, so no card takes a number meanwhile: the old prefix's keys end at the last number given.
    if (asked && asked !== current.key_prefix) await leavePrefix(q, current.key_prefix, id, current.next_key - 1)
    const { folder, ...fields } = input
    await checkFolder(q, folder)
    await updateBoardRow(q, id, { ...fields, ...(folder !== undefined ? { folder_id: folder } : {}), updated_at: at })
    return (await getBoard(q, id))!
  })
  // Also when the prefix is unchanged: a rename a crash interrupted is finished by sending the prefix again.
  if (input.key_prefix) {
    // Each chunk renames to the prefix the board has now, so two renames at once still end on the board's last prefix.
    await inChunks(deps.db, CARD_CHUNK, async (tx, size) => rekeyCardsOfBoard(deps, tx, actor, id, (await visibleBoard(tx.q, actor, id)).key_prefix, size))
  }
  return (await boardViews(deps.db.q, [board]))[0]
}

/**
 * DELETE moves the board to the trash, where it and all it holds are out of sight until restored or, TRASH_DAYS later,
 * deleted for good. `permanent` deletes it for good at once, which only workspace owners and admins may: the board is
 * first marked due (so it can no longer be restored, and the housekeeping finishes what a crash interrupts).
 */
export async function deleteBoard(deps: Deps, actor: Actor, id: string, permanent: boolean): Promise<void> {
  const now = deps.clock.now()
  await deps.db.tx(async (tx) => {
    const { q } = tx
    const board = await boardToManage(q, actor, id, 'move a board to the trash', { inTrashToo: true })
    if (permanent && !isAdmin(actor))
      throw forbidden('Only workspace owners and admins can delete a board for good; without permanent=true it goes to the trash.')
    if (permanent) await setBoardTrashed(q, id, { at: board.trashed_at ?? isoAt(now), by: actor.user.id, purgeAt: isoAt(now) })
    else if (board.trashed_at === null) {
      const purgeAt = isoAt(now + TRASH_DAYS * DAY_MS)
      await setBoardTrashed(q, id, { at: isoAt(now), by: actor.user.id, purgeAt })
      await audit(deps, tx, actor, 'board.trashed', board, { board: id, details: { purge_at: purgeAt } })
    }
  })
  if (permanent) await deleteForGood(deps, actor, id, actor)
}

/** Takes a board out of the trash as it was (one not in the trash is returned unchanged); past its purge_at, 409. */
export async function restoreBoard(deps: Deps, actor: Actor, id: string) {
  const board = await deps.db.tx(async (tx) => {
    const { q } = tx
    const board = await boardToManage(q, actor, id, 'restore a board', { inTrashToo: true })
    if (board.purge_at !== null && board.purge_at <= isoAt(deps.clock.now()))
      throw conflict('The board is being deleted for good; it can no longer be restored.')
    if (board.trashed_at !== null) {
      await setBoardTrashed(q, id, null)
      await audit(deps, tx, actor, 'board.restored', board, { board: id })
    }
    return (await getBoard(q, id))!
  })
  return (await boardViews(deps.db.q, [board]))[0]
}

/**
 * Deletes a board that is due (purge_at passed: it can no longer be restored) for good. Receivers keep copies of cards
 * and lists: each one gets its deletion event, naming `actor`. The cards go a chunk per transaction under the board's
 * lock; `stopping()` is asked before each, and what a stop leaves the next pass finishes. True when the board is gone.
 */
async function deleteForGood(deps: Deps, actor: Actor, id: string, by: Actor | Operator, stopping: () => boolean = () => false): Promise<boolean> {
  const due = async (q: Q) => {
    await lockBoard(q, id)
    const board = await getBoard(q, id)
    return board?.purge_at != null && !stopping() ? board : undefined
  }
  await inChunks(deps.db, CARD_CHUNK, async (tx, size) => ((await due(tx.q)) ? deleteCardsOfBoard(deps, tx, actor, id, size) : 0))
  return deps.db.tx(async (tx) => {
    const board = await due(tx.q)
    if (!board) return false
    while ((await deleteCardsOfBoard(deps, tx, actor, id, CARD_CHUNK)) === CARD_CHUNK);
    for (const list of await listsOfBoard(tx.q, id)) await emitEvent(deps, tx, { name: 'list.deleted', boardId: id, data: listEventData(list, board), actor })
    await pauseSubscriptionsOfBoard(deps, tx.q, id)
    await deleteBoardRow(tx.q, id)
    // The trash emptying itself is taskd's doing; the one who put the board there is kept in the details.
    const trashedBy = 'as' in by ? { trashed_by: board.trashed_by, trashed_at: board.trashed_at } : {}
    await audit(deps, tx, by, 'board.deleted', board, { board: id, details: { key_prefix: board.key_prefix, ...trashedBy } })
    return true
  })
}

/** Boards looked at per query; the next query takes the rest. */
const PURGE_BATCH = 20

/**
 * Deletes for good every board whose purge_at has come (src/housekeeping.ts runs it), until none is left or
 * `stopping()`. A board that fails is logged and skipped for the rest of the pass. The events name whoever put the
 * board in the trash (or deleted it for good). Returns how many boards went.
 */
export async function purgeTrashedBoards(deps: Deps, stopping: () => boolean, log: (msg: string, err?: unknown) => void): Promise<number> {
  const now = isoAt(deps.clock.now())
  const failed: string[] = []
  let purged = 0
  for (;;) {
    const due = await boardsDueForPurge(deps.db.q, now, PURGE_BATCH, failed)
    for (const board of due) {
      if (stopping()) return purged
      try {
        const user = (await getUser(deps.db.q, board.trashed_by ?? board.created_by ?? '')) ?? (await firstOwner(deps.db.q))
        if (await deleteForGood(deps, { user, tokenId: '', permission: 'full' }, board.id, SYSTEM, stopping)) purged++
      } catch (err) {
        failed.push(board.id)
        log(`housekeeping: deleting board ${board.id} for good failed; the next pass tries again`, err)
      }
    }
    if (due.length < PURGE_BATCH) return purged
  }
}

/**
 * Copies a board's statuses, lists (bound to the copies of their statuses), tags and custom fields, not its cards, into
 * a new board (in the same folder) the caller belongs to as its admin.
 */
export function cloneBoard(deps: Deps, actor: Actor, id: string, input: { name?: string }) {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const source = await boardInSight(q, actor, id)
    if (source.trashed_at !== null) throw inTrash()
    const at = isoAt(deps.clock.now())
    const board = await insertNewBoard(q, actor, at, {
      name: input.name ?? `${source.name} (copy)`,
      description: source.description,
      folder_id: source.folder_id,
    })
    const built = await buildStructure(deps, tx, actor, board, await readStructure(q, source.id, false), at, 'source')
    return { board: boardView(board, creatorOf(actor)), ...built }
  })
}

/** The members of a board the caller sees (also in the trash), each with their board role. */
export async function listMembers(deps: Deps, actor: Actor, boardId: string, params: ListParams) {
  const { q } = deps.db
  await boardInSight(q, actor, boardId)
  return listPage(deps.db, boardMembersQuery(q, boardId), MEMBER_LIST, params, async (rows: UsersTable[]) => {
    const roles = await memberRoles(
      q,
      boardId,
      rows.map((r) => r.id),
    )
    return rows.map((r) => ({ ...userView(r), board_role: roles.get(r.id)! }))
  })
}

// Email stays out of event data: receivers are outside the workspace and the catalog promises { id, name, kind }.
const memberEventData = (board: { id: string; name: string }, user: UsersTable): EventData<'board.member_added'> => ({
  board: { id: board.id, name: board.name },
  user: { id: user.id, name: user.name, kind: user.kind },
})

/** A membership's entry is about the user (target), on the board (its `board`). */
const memberTarget = (user: UsersTable) => ({ type: 'user' as const, id: user.id, name: user.name })

const lastAdmin = () => conflict("The board's last admin cannot leave, be removed or become a member; make another member admin first.")

/** True when the member is the board's only admin (the board row is locked by boardToManage, so the count holds). */
const isLastAdmin = async (q: Q, boardId: string, role: BoardRole) => role === 'admin' && (await countBoardAdmins(q, boardId)) === 1

/** Adds a member: as `member` unless `role` says otherwise, or as `admin` on a board that has none (an older one). */
export function addMember(deps: Deps, actor: Actor, boardId: string, input: { user?: string; role?: BoardRole }) {
  return deps.db.tx(async (tx) => {
    const board = await boardToManage(tx.q, actor, boardId, 'add members')
    const user = input.user === undefined ? undefined : await getUser(tx.q, input.user)
    if (!user) throw unprocessable('The request body is not valid.', [{ path: 'user', message: 'No such user.' }])
    const role = input.role ?? ((await countBoardAdmins(tx.q, boardId)) === 0 ? 'admin' : 'member')
    // Decided by the insert itself, so of two requests at once only one adds the member and announces it.
    if (!(await addBoardMember(tx.q, boardId, user.id, isoAt(deps.clock.now()), role))) throw conflict('The user is already a member of this board.')
    await emitEvent(deps, tx, { name: 'board.member_added', boardId, data: memberEventData(board, user), actor })
    await audit(deps, tx, actor, 'board.member_added', memberTarget(user), { board: boardId, details: { board_name: board.name, role } })
    return { ...userView(user), board_role: role }
  })
}

/**
 * Adds every member of a group who is not on the board yet (as `role`, `member` unless given), each announced with
 * board.member_added; returns the ids of those added.
 */
export function addGroupMembers(deps: Deps, actor: Actor, boardId: string, input: { group: string; role?: BoardRole }) {
  return deps.db.tx(async (tx) => {
    const board = await boardToManage(tx.q, actor, boardId, 'add members')
    if (!(await getGroup(tx.q, input.group))) throw invalidField('group', 'No such group.')
    const at = isoAt(deps.clock.now())
    const added: string[] = []
    for (const userId of (await membersOfGroups(tx.q, [input.group])).get(input.group) ?? []) {
      const user = await getUser(tx.q, userId)
      const role = input.role ?? ((await countBoardAdmins(tx.q, boardId)) === 0 ? 'admin' : 'member')
      if (!user || !(await addBoardMember(tx.q, boardId, user.id, at, role))) continue
      added.push(user.id)
      await emitEvent(deps, tx, { name: 'board.member_added', boardId, data: memberEventData(board, user), actor })
      await audit(deps, tx, actor, 'board.member_added', memberTarget(user), { board: boardId, details: { board_name: board.name, role, group: input.group } })
    }
    return { added }
  })
}

/** Makes a member admin or member of the board; the last admin stays admin. */
export function updateMember(deps: Deps, actor: Actor, boardId: string, userId: string, input: { role: BoardRole }) {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const board = await boardToManage(q, actor, boardId, "change members' roles")
    const member = await getBoardMember(q, boardId, userId)
    if (!member) throw notFound('board member')
    if (input.role === 'member' && (await isLastAdmin(q, boardId, member.board_role))) throw lastAdmin()
    await setMemberRole(q, boardId, userId, input.role)
    if (input.role !== member.board_role)
      await audit(deps, tx, actor, 'board.member_role_changed', memberTarget(member), {
        board: boardId,
        details: { board_name: board.name, from: member.board_role, to: input.role },
      })
    return { ...userView(member), board_role: input.role }
  })
}

/** Board admins (and workspace owners and admins) remove members; any member may leave, also a board in the trash. The last admin stays. */
export function removeMember(deps: Deps, actor: Actor, boardId: string, userId: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const board = await boardToManage(tx.q, actor, boardId, 'remove other members', { leaving: userId === actor.user.id })
    const member = await getBoardMember(tx.q, boardId, userId)
    if (!member) throw notFound('board member')
    if (await isLastAdmin(tx.q, boardId, member.board_role)) throw lastAdmin()
    await removeBoardMember(tx.q, boardId, userId)
    await emitEvent(deps, tx, { name: 'board.member_removed', boardId, data: memberEventData(board, member), actor })
    await audit(deps, tx, actor, 'board.member_removed', memberTarget(member), {
      board: boardId,
      details: { board_name: board.name, role: member.board_role, left: userId === actor.user.id },
    })
  })
}
