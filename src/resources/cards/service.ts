// Cards: list, create (idempotent per board), update, trash/delete, move, complete; every change emits its events.
import type { Actor } from '../../access/roles.js'
import { getMemberBoard, visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { CardsTable, ListsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import type { EventName } from '../../events/names.js'
import { unprocessable, type ErrorDetail } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { getBoards } from '../boards/store.js'
import { getList, listsOfBoard } from '../lists/store.js'
import { getTags } from '../tags/store.js'
import { getUsers } from '../users/store.js'
import { cardEventData, cardView, cardViews, type KnownNames } from './present.js'
import { CARD_LIST } from './query.js'
import type { CardFields, CardView, CreateCardInput } from './schema.js'
import {
  addTagLinks,
  addUserLinks,
  cardListQuery,
  cardsOfBoard,
  cardsOfList,
  deleteCardRow,
  findByIdempotencyKey,
  getCard,
  insertCard,
  maxCardPosition,
  rekeyBoardCards,
  setTagLinks,
  setUserLinks,
  takeCardNumber,
  updateCardRow,
  type CardListParams,
} from './store.js'

const invalid = (details: ErrorDetail[]) => unprocessable('The request body is not valid.', details)

/** A bare date stays a date; a date-time is stored as ISO 8601 UTC so text order is time order. */
const normalizeDate = (v: string | null | undefined) => (v == null || /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : new Date(v).toISOString())

export const visibleCard = (deps: Deps, actor: Actor, id: string): CardsTable => visibleOnBoard(deps.sql, actor, getCard(deps.sql, id), 'card')

/** Cards of the boards the caller belongs to, narrowed by the list parameters and `filter`. */
export function listCards(deps: Deps, actor: Actor, params: ListParams & CardListParams) {
  return listPage(deps.sql, cardListQuery(actor.user.id, params), CARD_LIST, params, (rows: CardsTable[], expand) => cardViews(deps.sql, rows, expand), {
    anchored: Boolean(params.board || params.list),
  })
}

const viewOf = (deps: Deps, id: string): CardView => cardViews(deps.sql, [getCard(deps.sql, id)!])[0]

/** Checks every id the input names; returns the list it names, if any. */
function checkRefs(deps: Deps, boardId: string, input: CardFields): ListsTable | undefined {
  const details: ErrorDetail[] = []
  const list = input.list === undefined ? undefined : getList(deps.sql, input.list)
  if (input.list !== undefined && list?.board_id !== boardId) details.push({ path: 'list', message: 'No such list on this board.' })
  for (const field of ['assignees', 'watchers'] as const) {
    const ids = input[field]
    if (ids && getUsers(deps.sql, ids).length !== new Set(ids).size) details.push({ path: field, message: 'Every entry must be an existing user id.' })
  }
  if (input.tags) {
    const tags = getTags(deps.sql, input.tags)
    if (tags.length !== new Set(input.tags).size || tags.some((t) => t.board_id !== boardId))
      details.push({ path: 'tags', message: 'Every entry must be a tag id of this board.' })
  }
  if (details.length) throw invalid(details)
  return list
}

/** Emits the events of one change of a card; their enriched data is read once and shared by all of them. */
function cardEmitter(deps: Deps, actor: Actor, view: CardView, known?: KnownNames) {
  let base: Record<string, unknown> | undefined
  const emit = (name: EventName, extra: Record<string, unknown> = {}): void => {
    base ??= cardEventData(deps.sql, deps.config, view, known)
    emitEvent(deps, { name, boardId: view.board, data: { ...base, ...extra, actor: { id: actor.user.id, name: actor.user.name } } })
  }
  /** `{ id, name }` of an assignee, from the data already read. */
  const assignee = (id: string) => {
    base ??= cardEventData(deps.sql, deps.config, view, known)
    return (base.assignees as { id: string; name: string | null }[]).find((a) => a.id === id) ?? userRef(deps, id)
  }
  return { emit, assignee }
}

/** `{ id, name }` references for event data, so receivers need no second lookup. */
const userRef = (deps: Deps, id: string) => ({ id, name: getUsers(deps.sql, [id])[0]?.name ?? null })
const listRef = (deps: Deps, id: string) => ({ id, name: getList(deps.sql, id)?.name ?? null })
const boardRef = (deps: Deps, id: string) => ({ id, name: getBoards(deps.sql, [id])[0]?.name ?? null })

export function createCard(deps: Deps, actor: Actor, input: CreateCardInput): { card: CardView; existing: boolean } {
  const { sql } = deps
  return sql.tx(() => {
    const board = visibleBoard(sql, actor, input.board)
    if (input.idempotency_key !== undefined) {
      const found = findByIdempotencyKey(sql, board.id, input.idempotency_key)
      if (found) return { card: { ...cardViews(sql, [found])[0], existing: true }, existing: true }
    }
    const named = checkRefs(deps, board.id, input)
    const list = named ?? listsOfBoard(sql, board.id)[0]
    if (!list) throw invalid([{ path: 'list', message: 'The board has no list.' }])
    const num = takeCardNumber(sql, board.id)
    const now = deps.clock.now(),
      at = isoAt(now)
    const row: CardsTable = {
      id: newId(),
      board_id: board.id,
      list_id: list.id,
      key_num: num,
      key: `${board.key_prefix}-${num}`,
      title: input.title,
      description: input.description ?? '',
      position: input.position ?? maxCardPosition(sql, list.id) + 1,
      priority: input.priority ?? 0,
      start_date: normalizeDate(input.start_date) ?? null,
      due_date: normalizeDate(input.due_date) ?? null,
      completed: input.completed ? 1 : 0,
      completed_at: input.completed ? at : null,
      archived: input.archived ? 1 : 0,
      trashed: 0,
      idempotency_key: input.idempotency_key ?? null,
      created_by: actor.user.id,
      created_at: at,
      updated_at: at,
    }
    insertCard(sql, row)
    const links = { assignees: [...new Set(input.assignees ?? [])], watchers: [...new Set(input.watchers ?? [])], tags: [...new Set(input.tags ?? [])] }
    addUserLinks(sql, 'card_assignees', row.id, links.assignees)
    addUserLinks(sql, 'card_watchers', row.id, links.watchers)
    addTagLinks(sql, row.id, links.tags)
    // The view is built from what was just written: reading it back would double the statements of a create.
    const view = cardView(row, links, list.category, { id: actor.user.id, name: actor.user.name })
    const events = cardEmitter(deps, actor, view, { board: { id: board.id, name: board.name }, list: { id: list.id, name: list.name } })
    events.emit('card.created')
    for (const user of view.assignees) events.emit('card.assigned', { user: events.assignee(user) })
    return { card: view, existing: false }
  })
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x))

/** Names of changed columns in card.updated `changes`; bookkeeping columns (key numbers, completed_at) are left out. */
const CHANGE_NAMES: Partial<Record<keyof CardsTable, string>> = {
  title: 'title',
  description: 'description',
  board_id: 'board',
  list_id: 'list',
  position: 'position',
  priority: 'priority',
  start_date: 'start_date',
  due_date: 'due_date',
  completed: 'completed',
  archived: 'archived',
  trashed: 'trashed',
}

/** Applies a change to a card the actor can see; emits card.updated plus the specific events. Call inside a transaction. */
function applyChange(deps: Deps, actor: Actor, before: CardsTable, input: CardFields & { board?: string }): CardView {
  const { sql } = deps
  const old = cardViews(sql, [before])[0]
  const boardId = input.board ?? before.board_id
  const target = boardId === before.board_id ? undefined : visibleBoard(sql, actor, boardId)
  checkRefs(deps, boardId, input)
  const at = isoAt(deps.clock.now())
  // The next state is worked out before anything is written: a change that changes nothing writes nothing.
  const set: Partial<CardsTable> = {}
  const put = <K extends keyof CardsTable>(k: K, v: CardsTable[K] | undefined) => {
    if (v !== undefined && v !== before[k]) set[k] = v
  }
  if (target) {
    const num = takeCardNumber(sql, target.id)
    Object.assign(set, { board_id: target.id, key_num: num, key: `${target.key_prefix}-${num}`, idempotency_key: null })
  }
  put('title', input.title)
  put('description', input.description)
  put('priority', input.priority)
  put('list_id', input.list)
  put('position', input.position ?? (set.list_id !== undefined ? maxCardPosition(sql, set.list_id) + 1 : undefined))
  if (input.start_date !== undefined) put('start_date', normalizeDate(input.start_date) ?? null)
  if (input.due_date !== undefined) put('due_date', normalizeDate(input.due_date) ?? null)
  if (input.completed !== undefined) put('completed', input.completed ? 1 : 0)
  if (set.completed !== undefined) set.completed_at = set.completed ? at : null
  if (input.archived !== undefined) put('archived', input.archived ? 1 : 0)
  if (input.trashed !== undefined) put('trashed', input.trashed ? 1 : 0)
  if (set.trashed === 1) set.idempotency_key = null // trashing frees the key
  const links = {
    assignees: input.assignees ? [...new Set(input.assignees)] : old.assignees,
    watchers: input.watchers ? [...new Set(input.watchers)] : old.watchers,
    tags: input.tags ? [...new Set(input.tags)] : target ? [] : old.tags, // tags belong to a board: they stay behind
  }
  const changedLinks = (['assignees', 'tags', 'watchers'] as const).filter((k) => !sameSet(old[k], links[k]))
  const changes = [...(Object.keys(set) as (keyof CardsTable)[]).flatMap((k) => CHANGE_NAMES[k] ?? []), ...changedLinks]
  if (changes.length === 0) return old
  if (changedLinks.includes('assignees')) setUserLinks(sql, 'card_assignees', before.id, links.assignees)
  if (changedLinks.includes('watchers')) setUserLinks(sql, 'card_watchers', before.id, links.watchers)
  if (changedLinks.includes('tags')) setTagLinks(sql, before.id, links.tags)
  updateCardRow(sql, before.id, { ...set, updated_at: at })
  const view = viewOf(deps, before.id)
  const events = cardEmitter(deps, actor, view)
  if (view.trashed && !old.trashed) events.emit('card.deleted', { permanent: false })
  events.emit('card.updated', { changes })
  if (view.list !== old.list || view.board !== old.board) {
    // Across boards, the receivers of the new board may not see the old one: its ids only, not its names.
    const across = view.board !== old.board
    events.emit('card.moved', {
      from_list: across ? { id: old.list, name: null } : listRef(deps, old.list),
      to_list: listRef(deps, view.list),
      from_board: across ? { id: old.board, name: null } : boardRef(deps, old.board),
    })
  }
  if (view.completed !== old.completed) events.emit(view.completed ? 'card.completed' : 'card.reopened')
  for (const u of view.assignees.filter((u) => !old.assignees.includes(u))) events.emit('card.assigned', { user: events.assignee(u) })
  for (const u of old.assignees.filter((u) => !view.assignees.includes(u))) events.emit('card.unassigned', { user: userRef(deps, u) })
  return view
}

export function updateCard(deps: Deps, actor: Actor, id: string, input: CardFields & { board?: string }): CardView {
  return deps.sql.tx(() => applyChange(deps, actor, visibleCard(deps, actor, id), input))
}

export function moveCard(deps: Deps, actor: Actor, id: string, input: { list: string; position?: number; board?: string }): CardView {
  return deps.sql.tx(() => {
    const card = visibleCard(deps, actor, id)
    const found = getList(deps.sql, input.list)
    // A list on a board the caller cannot see answers like an unknown one, so its existence does not leak.
    const list = found && getMemberBoard(deps.sql, found.board_id, actor.user.id) ? found : undefined
    const boardId = input.board ?? list?.board_id ?? card.board_id
    if (!list || list.board_id !== boardId) throw invalid([{ path: 'list', message: input.board ? 'No such list on the target board.' : 'No such list.' }])
    return applyChange(deps, actor, card, { list: input.list, position: input.position, board: boardId })
  })
}

export function trashCard(deps: Deps, actor: Actor, id: string, permanent: boolean): void {
  deps.sql.tx(() => {
    const card = visibleCard(deps, actor, id)
    if (!permanent) {
      if (card.trashed === 0) applyChange(deps, actor, card, { trashed: true })
      return
    }
    const view = cardViews(deps.sql, [card])[0]
    const data = cardEventData(deps.sql, deps.config, view)
    deleteCardRow(deps.sql, id)
    emitEvent(deps, { name: 'card.deleted', boardId: card.board_id, data: { ...data, permanent: true, actor: { id: actor.user.id, name: actor.user.name } } })
  })
}

export function getCardFor(deps: Deps, actor: Actor, id: string, expand?: string): CardView {
  return cardViews(deps.sql, [visibleCard(deps, actor, id)], parseExpand(expand, CARD_LIST.expand))[0]
}

/** Moves every card of a list to another list of the same board, each with its own events (a list deleted with move_to). */
export function moveAllCards(deps: Deps, actor: Actor, fromList: string, toList: string): void {
  for (const card of cardsOfList(deps.sql, fromList)) applyChange(deps, actor, card, { list: toList })
}

/** Deletes every card of a board for good, each with its card.deleted event (a board being deleted). */
export function deleteAllCards(deps: Deps, actor: Actor, boardId: string): void {
  for (const card of cardsOfBoard(deps.sql, boardId)) trashCard(deps, actor, card.id, true)
}

/** Renames every key of a board to a new prefix (numbers kept) and announces each card (card.updated, changes: key). */
export function rekeyCards(deps: Deps, actor: Actor, boardId: string, prefix: string): void {
  rekeyBoardCards(deps.sql, boardId, prefix)
  for (const view of cardViews(deps.sql, cardsOfBoard(deps.sql, boardId))) cardEmitter(deps, actor, view).emit('card.updated', { changes: ['key'] })
}
