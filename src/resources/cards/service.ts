// Cards: list, create (idempotent per board), update, trash/delete, move, complete; every change emits its events.
// The `…In` functions run inside a transaction their caller holds (bulk routes, cascades of lists and boards).
import { moveAgentRecords } from '../agent-runs/published.js'
import { type Actor, creatorId } from '../../access/roles.js'
import { seesBoard, seesMostBoards, visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import { inChunks, type Q, readTogether, together, type Tx } from '../../db/database.js'
import { appendedPositions, distinctPosition } from '../../db/positions.js'
import { Late } from '../../db/late.js'
import type { CardsTable, ListsTable, TagsTable, UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { HttpError, invalidBody, notFound, unprocessable, type ErrorDetail } from '../../errors.js'
import { emitEvent, emitEvents, type NewEvent } from '../../events/emit.js'
import type { EventData, EventName } from '../../events/fields.js'
import { newId } from '../../ids.js'
import { applyFilter } from '../../filter/index.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { getBoards, memberRoles } from '../boards/published.js'
import { fillFromCardTemplate } from '../card-templates/published.js'
import { insertChecklist, insertItems } from '../checklists/published.js'
import { getList, listsOfBoard } from '../lists/published.js'
import { getTags } from '../tags/published.js'
import { commentsGoneEvents } from '../comments/service.js'
import { announceDependenciesOfCardsGone } from '../dependencies/announce.js'
import { checkParent, checkParentOfMany, detachLinksOfCardsGone, type SourceBrief, writeParentLink, writeParentLinks } from '../entity-links/parents.js'
import { firstListWithStatus, getStatus } from '../board-statuses/published.js'
import { getMilestone } from '../milestones/published.js'
import { savedFilterSeenBy } from '../saved-filters/published.js'
import { notify, readAheadNotice } from '../inbox/service.js'
import { readAheadEventAutomations } from '../automations/published.js'
import { readAheadReceivers } from '../../events/store.js'
import { getUsers } from '../users/published.js'
import { loadCardLinks } from './published.js'
import { dropValuesOfCard, fieldsOfBoards } from '../xattr/published.js'
import { checkXattrChange, writeCardXattr, writeXattrChange, xattrOfCards, type XattrChange } from '../xattr/values.js'
import { completionColumns, completionOfMove, placeCard } from './completion.js'
import { cardEventData, cardEventDatas, cardView, cardViews, eventCards, type KnownNames } from './present.js'
import { CARD_LIST } from './query.js'
import type { CardFields, CardListParams, CardView, CreateCardInput } from './schema.js'
import {
  addTagLinks,
  addUserLinks,
  cardListQueries,
  changeLinks,
  cardIdsOfLists,
  cardsByIds,
  cardsOfBoard,
  cardsOfList,
  cardsOfListAfter,
  cardsOfListToSettle,
  cardsOfMilestone,
  cardsToRekey,
  deleteCardRows,
  findByIdempotencyKey,
  getCard,
  lockCard,
  lockCards,
  insertCard,
  moveCardRows,
  setCardColumns,
  rekeyCards,
  setTagLinks,
  setUserLinks,
  takeCardKey,
  unnarrowed,
  updateCardRow,
} from './store.js'

const invalid = (details: ErrorDetail[]) => unprocessable('The request body is not valid.', details)

/** A bare date stays a date; a date-time is stored as ISO 8601 UTC so text order is time order. */
const normalizeDate = (v: string | null | undefined) => (v == null || /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : new Date(v).toISOString())

export const visibleCard = async (q: Q, actor: Actor, id: string): Promise<CardsTable> => visibleOnBoard(q, actor, await getCard(q, id), 'card')
/** visibleCard for a change: the row stays locked until the transaction ends, so concurrent changes take turns. */
export const cardToChange = async (q: Q, actor: Actor, id: string): Promise<CardsTable> => visibleOnBoard(q, actor, await lockCard(q, id), 'card')

/**
 * Cards of the boards the caller belongs to, narrowed by the list parameters and `filter`; with `saved_filter`, by that
 * saved filter too (one the caller sees, else 404): its filter AND the request's, its board's cards only, and its sort
 * and expand unless the request gives its own.
 */
export async function listCards(deps: Deps, actor: Actor, request: ListParams & CardListParams) {
  const { q } = deps.db
  const saved = request.saved_filter === undefined ? undefined : await savedFilterSeenBy(q, actor.user, request.saved_filter)
  if (request.saved_filter !== undefined && !saved) throw notFound('saved filter')
  const params = saved
    ? {
        ...request,
        board: request.board ?? saved.board_id ?? undefined,
        sort: request.sort || saved.sort || undefined,
        expand: request.expand ?? saved.expand ?? undefined,
      }
    : request
  // Whether the viewer sees most boards matters only for a list not narrowed (one query fewer for the others).
  const seesMost = unnarrowed(params) && !saved?.filter && (await seesMostBoards(q, actor.user))
  const lists = cardListQueries(q, actor.user, params, seesMost)
  const anchored = Boolean(params.board || params.list)
  // The saved filter's conditions beside the request's (a request naming another board than the saved one's gets none).
  const narrowed = (b: typeof lists.base) => {
    if (!saved) return b
    const mine = applyFilter(b, 'cards', saved.filter, { anchored })
    return saved.board_id && saved.board_id !== params.board ? mine.where('cards.board_id', '=', saved.board_id) : mine
  }
  // The page's views read together (one message on PostgreSQL).
  const present = (rows: CardsTable[], expand: ReadonlySet<string>) => readTogether(deps.db, (rq) => cardViews(rq, rows, expand, actor.user))
  return listPage(deps.db, narrowed(lists.base), CARD_LIST, params, present, {
    anchored,
    countBase: lists.countBase && narrowed(lists.countBase),
    board: params.board,
  })
}

export async function getCardFor(deps: Deps, actor: Actor, id: string, expand?: string): Promise<CardView> {
  const { q } = deps.db
  return (await cardViews(q, [await visibleCard(q, actor, id)], parseExpand(expand, CARD_LIST.expand), actor.user))[0]
}

const viewOf = async (q: Q, id: string): Promise<CardView> => (await cardViews(q, [(await getCard(q, id))!]))[0]

/**
 * Checks every id the input names; returns the list it names, if any, or the list its `status` sends the card to (the
 * board's first list with that status; `current`, the card's list now, when it has it), and the assignees and tags
 * read. Watchers must be members of the board; `watching` (the card's watchers now) are not checked again, so a watcher
 * who left the board does not block an edit. A milestone must be one of the board's. The reads go together (one round
 * trip on PostgreSQL).
 */
async function checkRefs(
  q: Q,
  boardId: string,
  input: CardFields,
  watching: readonly string[] = [],
  current?: string,
): Promise<{ list: ListsTable | undefined; users: UsersTable[]; tags: TagsTable[] }> {
  const details: ErrorDetail[] = []
  const newWatchers = [...new Set(input.watchers ?? [])].filter((u) => !watching.includes(u))
  const [named, status, milestone, users, watcherRoles, tags] = await together(() =>
    Promise.all([
      input.list === undefined ? undefined : getList(q, input.list),
      input.status === undefined ? undefined : getStatus(q, input.status),
      input.milestone == null ? undefined : getMilestone(q, input.milestone),
      input.assignees ? getUsers(q, input.assignees) : [],
      memberRoles(q, boardId, newWatchers),
      input.tags ? getTags(q, input.tags) : [],
    ]),
  )
  let list = named
  if (input.list !== undefined && list?.board_id !== boardId) details.push({ path: 'list', message: 'No such list on this board.' })
  if (input.status !== undefined) {
    if (status?.board_id !== boardId) details.push({ path: 'status', message: 'No such status on this board.' })
    else if (input.list !== undefined) {
      if (list?.board_id === boardId && list.status_id !== status.id) details.push({ path: 'status', message: 'The list named has another status.' })
    } else {
      const now = current === undefined ? undefined : await getList(q, current)
      list = now?.board_id === boardId && now.status_id === status.id ? now : await firstListWithStatus(q, boardId, status.id)
      if (!list) details.push({ path: 'status', message: 'No list of this board has this status; bind a list to it first.' })
    }
  }
  if (input.milestone != null && milestone?.board_id !== boardId) details.push({ path: 'milestone', message: 'No such milestone on this board.' })
  if (input.assignees && users.length !== new Set(input.assignees).size)
    details.push({ path: 'assignees', message: 'Every entry must be an existing user id.' })
  if (watcherRoles.size !== newWatchers.length) details.push({ path: 'watchers', message: 'Every entry must be the id of a member of the board.' })
  if (input.tags) {
    if (tags.length !== new Set(input.tags).size || tags.some((t) => t.board_id !== boardId))
      details.push({ path: 'tags', message: 'Every entry must be a tag id of this board.' })
  }
  if (details.length) throw invalid(details)
  return { list, users, tags }
}

/** `{ id, name }` references for event data, so receivers need no second lookup. */
const userRef = async (q: Q, id: string) => ({ id, name: (await getUsers(q, [id]))[0]?.name ?? null })
const listRef = async (q: Q, id: string) => ({ id, name: (await getList(q, id))?.name ?? null })
const boardRef = async (q: Q, id: string) => ({ id, name: (await getBoards(q, [id]))[0]?.name ?? null })

type CardEvent = Extract<EventName, `card.${string}`>
/** What every task event carries. */
type TaskData = EventData<'card.created'>
/** A task event's own fields beside the task's: required when it has some. */
type ExtraArg<N extends CardEvent> = [keyof Omit<EventData<N>, keyof TaskData>] extends [never] ? [] : [extra: Omit<EventData<N>, keyof TaskData>]

/** Emits the events of one change of a card; their enriched data is read once and shared by all of them. */
function cardEmitter(deps: Deps, tx: Tx, actor: Actor, view: CardView, known?: KnownNames) {
  let base: TaskData | undefined
  const data = async () => (base ??= await cardEventData(tx.q, deps.config, view, known))
  const emit = async <N extends CardEvent>(name: N, ...[extra]: ExtraArg<N>): Promise<void> => {
    // The signature checked `extra` against this event's payload; a generic spread cannot be followed back to it.
    await emitEvent(deps, tx, { name, boardId: view.board, data: { ...(await data()), ...extra }, actor } as NewEvent)
  }
  /** `{ id, name }` of an assignee, from the data already read. */
  const assignee = async (id: string) => (await data()).assignees.find((a) => a.id === id) ?? userRef(tx.q, id)
  return { emit, assignee }
}

/**
 * A card created by a request of its own: its number and its place at the end of its list are taken late (see
 * src/db/late.ts), so creates on one board hold the board's and the list's rows only while the commit runs.
 */
export async function createCard(deps: Deps, actor: Actor, input: CreateCardInput): Promise<{ card: CardView; existing: boolean }> {
  const late = new Late()
  return late.settle(await deps.db.tx((tx) => createCardIn(deps, tx, actor, input, late)))
}

/** `late`: the number and the place may be taken late (the caller uses what this returns only after the commit, settled). */
export async function createCardIn(deps: Deps, tx: Tx, actor: Actor, body: CreateCardInput, late?: Late): Promise<{ card: CardView; existing: boolean }> {
  const { q } = tx
  // The reads that depend on nothing but the request go together (one round trip on PostgreSQL), with those the card's
  // events and notices will make (the board's webhooks and automations, who of the people named sees the board).
  const plain = body.template === undefined
  const [board, found, refs, boardLists] = await together(() => {
    if (plain) readAheadWrites(q, actor, body)
    return Promise.all([
      visibleBoard(q, actor, body.board),
      body.idempotency_key === undefined ? undefined : findByIdempotencyKey(q, body.board, body.idempotency_key),
      plain && body.title !== undefined ? settled(checkRefs(q, body.board, body)) : undefined,
      plain && (body.list === undefined || body.completed !== undefined) ? listsOfBoard(q, body.board) : undefined,
    ])
  })
  if (found) return { card: { ...(await cardViews(q, [found]))[0], existing: true }, existing: true }
  const { input, checklist } = plain ? { input: body, checklist: null } : await fillFromCardTemplate(q, board.id, body.template!, body)
  const title = input.title
  if (title === undefined)
    throw invalidBody([{ path: 'title', message: body.template === undefined ? 'title is required.' : 'title is required (the card template gives none).' }])
  const { list: named, users, tags } = refs ? refs.unwrap() : await checkRefs(q, board.id, input)
  const parent = input.parent ? await checkParent(q, actor, undefined, input.parent) : undefined
  // A named list alone needs no look at the others: only a completion may send the card elsewhere.
  const lists = named && input.completed === undefined ? [named] : (boardLists ?? (await listsOfBoard(q, board.id)))
  if (lists.length === 0) throw invalid([{ path: 'list', message: 'The board has no list.' }])
  const { list, completed } = placeCard(lists, undefined, { list: named, completed: input.completed })
  const id = newId()
  // What the view needs (the watchers' names too, which the events carry); then the key (the board's row stays locked
  // until the commit) and the place in the list. Taken late, these two are held back and go with the next message: the
  // COMMIT's for a plain create, an earlier one where a read comes after them (custom fields read back, a parent link,
  // an event automation's card filter).
  const watcherIds = [...new Set(input.watchers ?? [])].filter((w) => !users.some((u) => u.id === w))
  const [status, fields, watchers] = await together(() =>
    Promise.all([list.status_id ? getStatus(q, list.status_id) : undefined, fieldsOfBoards(q, [board.id]), watcherIds.length ? getUsers(q, watcherIds) : []]),
  )
  const [taken, position] = await together(() => Promise.all([takeCardKey(q, board.id, late), distinctPosition(q, 'cards', list.id, id, input.position, late)]))
  if (!taken) throw notFound('board')
  const at = isoAt(deps.clock.now())
  const row: CardsTable = {
    id,
    board_id: board.id,
    list_id: list.id,
    key_num: taken.num,
    key: taken.key,
    title,
    description: input.description ?? '',
    position,
    priority: input.priority ?? 0,
    start_date: normalizeDate(input.start_date) ?? null,
    due_date: normalizeDate(input.due_date) ?? null,
    ...completionColumns(completed, at),
    archived: input.archived ? 1 : 0,
    trashed: 0,
    idempotency_key: input.idempotency_key ?? null,
    created_by: creatorId(actor),
    created_at: at,
    updated_at: at,
    parent_id: parent?.id ?? null,
    milestone_id: input.milestone ?? null,
  }
  // Nothing reads these rows back in this transaction: they travel with its next statement or its COMMIT.
  await insertCard(q, row, 'later')
  const links = {
    assignees: [...new Set(input.assignees ?? [])],
    watchers: [...new Set(input.watchers ?? [])],
    tags: [...new Set(input.tags ?? [])],
    files: [],
  }
  await addUserLinks(q, 'card_assignees', row.id, links.assignees, 'later')
  await addUserLinks(q, 'card_watchers', row.id, links.watchers, 'later')
  await addTagLinks(q, row.id, links.tags, 'later')
  const problems: ErrorDetail[] = []
  const { boardHasFields } = await writeCardXattr(q, row, input.xattr, true, problems, fields)
  if (problems.length) throw invalid(problems)
  if (checklist) await addChecklist(q, row, checklist, at, creatorId(actor))
  // The view is built from what was just written: reading it back would double the statements of a create.
  const xattr = boardHasFields ? (await xattrOfCards(q, [row])).get(row.id) : {}
  const view = cardView(
    row,
    links,
    list.category,
    actor.run ? null : { id: actor.user.id, name: actor.user.name },
    undefined,
    undefined,
    status ? { id: status.id, name: status.name, category: status.category } : null,
    xattr,
  )
  const known = { board: { id: board.id, name: board.name }, list: { id: list.id, name: list.name }, users: [...users, ...watchers], tags }
  const data = await cardEventData(q, deps.config, view, known)
  const assigned = (user: string): NewEvent => ({
    name: 'card.assigned',
    boardId: board.id,
    data: { ...data, user: data.assignees.find((a) => a.id === user) ?? { id: user, name: null } },
    actor,
  })
  const created: NewEvent = { name: 'card.created', boardId: board.id, data, actor }
  // A parent link's events come between card.created and card.assigned, as they always have.
  if (row.parent_id) {
    await emitEvent(deps, tx, created)
    await writeParentLink(deps, tx, actor, row.id, null, row.parent_id, at)
    if (view.assignees.length) await emitEvents(deps, tx, view.assignees.map(assigned))
  } else await emitEvents(deps, tx, [created, ...view.assignees.map(assigned)])
  await notify(deps, tx, actor, { kind: 'assigned', users: view.assignees, card: row })
  await notify(deps, tx, actor, { kind: 'watching', users: view.watchers, card: row })
  return { card: view, existing: false }
}

/**
 * Starts the reads a card create's writes will make, beside its checks (together): the board's webhooks and event
 * automations, and who of the people it names sees the board (their notices).
 */
function readAheadWrites(q: Q, actor: Actor, body: CreateCardInput): void {
  readAheadReceivers(q, body.board)
  readAheadEventAutomations(q, body.board)
  const card = { id: '', board_id: body.board }
  readAheadNotice(q, actor, { kind: 'assigned', users: [...new Set(body.assignees ?? [])], card })
  readAheadNotice(q, actor, { kind: 'watching', users: [...new Set(body.watchers ?? [])], card })
}

/** A promise's outcome kept for later (a check whose error must come after others' errors): unwrap() returns or throws it. */
async function settled<T>(p: Promise<T>): Promise<{ unwrap: () => T }> {
  try {
    const value = await p
    return { unwrap: () => value }
  } catch (err) {
    return {
      unwrap: () => {
        throw err
      },
    }
  }
}

/** The checklist a card template gives a new card, its items in order. */
async function addChecklist(q: Q, card: CardsTable, checklist: { title: string; items: string[] }, at: string, by: string | null) {
  const id = newId()
  await insertChecklist(q, { id, card_id: card.id, title: checklist.title, position: 1, created_by: by, created_at: at, updated_at: at })
  await insertItems(
    q,
    checklist.items.map((text, i) => ({
      id: newId(),
      checklist_id: id,
      text,
      position: i + 1,
      completed: 0,
      completed_at: null,
      completed_by: null,
      created_at: at,
      updated_at: at,
    })),
  )
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
  parent_id: 'parent',
  milestone_id: 'milestone',
}

type CardChange = CardFields & { board?: string }

/**
 * The card row's columns that change (only those whose value differs). A move to another board (target) happens here
 * already: the card takes a key on that board, and its agent runs, kickoffs and questions go with it.
 */
async function changedColumns(q: Q, before: CardsTable, input: CardChange, target: { id: string } | undefined, at: string): Promise<Partial<CardsTable>> {
  const set: Partial<CardsTable> = {}
  const put = <K extends keyof CardsTable>(k: K, v: CardsTable[K] | undefined) => {
    if (v !== undefined && v !== before[k]) set[k] = v
  }
  if (target) {
    const taken = await takeCardKey(q, target.id)
    if (!taken) throw notFound('board')
    Object.assign(set, { board_id: target.id, key_num: taken.num, key: taken.key, idempotency_key: null })
    // Milestones belong to a board: the old one stays behind.
    if (input.milestone === undefined && before.milestone_id !== null) set.milestone_id = null
    await moveAgentRecords(q, before.id, target.id)
  }
  put('title', input.title)
  put('description', input.description)
  put('priority', input.priority)
  put('milestone_id', input.milestone)
  put('list_id', input.list)
  const targetList = set.list_id ?? before.list_id
  if (input.position !== undefined || set.list_id !== undefined) put('position', await distinctPosition(q, 'cards', targetList, before.id, input.position))
  if (input.start_date !== undefined) put('start_date', normalizeDate(input.start_date) ?? null)
  if (input.due_date !== undefined) put('due_date', normalizeDate(input.due_date) ?? null)
  if (input.completed !== undefined) put('completed', input.completed ? 1 : 0)
  if (set.completed !== undefined) Object.assign(set, completionColumns(set.completed === 1, at))
  if (input.archived !== undefined) put('archived', input.archived ? 1 : 0)
  if (input.trashed !== undefined) put('trashed', input.trashed ? 1 : 0)
  if (input.parent !== undefined) put('parent_id', input.parent)
  if (set.trashed === 1) set.idempotency_key = null // trashing frees the key
  return set
}

/** The card's assignees, watchers and tags after the change. */
async function nextLinks(q: Q, old: CardView, input: CardChange, target: { id: string } | undefined) {
  return {
    assignees: input.assignees ? [...new Set(input.assignees)] : old.assignees,
    // Watchers must be members of the board: on a move to another board, those who are not stop watching.
    watchers: input.watchers ? [...new Set(input.watchers)] : target ? [...(await memberRoles(q, target.id, old.watchers)).keys()] : old.watchers,
    tags: input.tags ? [...new Set(input.tags)] : target ? [] : old.tags, // tags belong to a board: they stay behind
  }
}

/** The events of a change (card.updated plus the specific ones) and the inbox notifications it sends. */
async function announceChange(deps: Deps, tx: Tx, actor: Actor, old: CardView, view: CardView, changes: string[]): Promise<void> {
  const { q } = tx
  const events = cardEmitter(deps, tx, actor, view)
  if (view.trashed && !old.trashed) await events.emit('card.deleted', { permanent: false })
  await events.emit('card.updated', { changes })
  if (view.list !== old.list || view.board !== old.board) {
    // Across boards, the receivers of the new board may not see the old one: its ids only, not its names.
    const across = view.board !== old.board
    await events.emit('card.moved', {
      from_list: across ? { id: old.list, name: null } : await listRef(q, old.list),
      to_list: await listRef(q, view.list),
      from_board: across ? { id: old.board, name: null } : await boardRef(q, old.board),
    })
  }
  if (view.completed !== old.completed) await events.emit(view.completed ? 'card.completed' : 'card.reopened')
  for (const u of view.assignees.filter((u) => !old.assignees.includes(u))) await events.emit('card.assigned', { user: await events.assignee(u) })
  for (const u of old.assignees.filter((u) => !view.assignees.includes(u))) await events.emit('card.unassigned', { user: await userRef(q, u) })
  const card = { id: view.id, board_id: view.board }
  await notify(deps, tx, actor, { kind: 'assigned', users: view.assignees.filter((u) => !old.assignees.includes(u)), card })
  await notify(deps, tx, actor, { kind: 'watching', users: view.watchers.filter((u) => !old.watchers.includes(u)), card })
  if (view.completed && !old.completed) await notify(deps, tx, actor, { kind: 'completed', users: view.watchers, card })
}

/**
 * A change that names a list or a completion, with both settled by the completion rule (completion.ts): completing
 * may move the card to a completed list, a move may complete or re-open it. Other changes are returned as they are.
 */
async function withPlacement(q: Q, boardId: string, before: CardsTable, named: ListsTable | undefined, input: CardChange): Promise<CardChange> {
  if (input.list === undefined && input.completed === undefined) return input
  const lists = await listsOfBoard(q, boardId)
  const from = lists.find((l) => l.id === before.list_id) ?? (await getList(q, before.list_id))
  const placed = placeCard(lists, from && { list: from, completed: before.completed === 1 }, { list: named, completed: input.completed })
  return { ...input, list: placed.list.id, completed: placed.completed }
}

/** Applies a change to a card the actor can see; emits card.updated plus the specific events. */
async function applyChange(deps: Deps, tx: Tx, actor: Actor, before: CardsTable, input: CardChange): Promise<CardView> {
  const { q } = tx
  const old = (await cardViews(q, [before]))[0]
  const boardId = input.board ?? before.board_id
  const target = boardId === before.board_id ? undefined : await visibleBoard(q, actor, boardId)
  const { list: named } = await checkRefs(q, boardId, input, target ? [] : old.watchers, before.list_id)
  if (input.parent != null && input.parent !== before.parent_id) await checkParent(q, actor, before, input.parent)
  const at = isoAt(deps.clock.now())
  // A status names no list itself: the list it sends the card to is placed as if it were named.
  const change = await withPlacement(q, boardId, before, named, input.status !== undefined && named ? { ...input, list: named.id } : input)
  // The next state is worked out before anything is written: a change that changes nothing writes nothing.
  const set = await changedColumns(q, before, change, target, at)
  const links = await nextLinks(q, old, input, target)
  const changedLinks = (['assignees', 'tags', 'watchers'] as const).filter((k) => !sameSet(old[k], links[k]))
  // Custom fields belong to a board: on a move to another board the card's values stay behind (as its tags do).
  if (target) await dropValuesOfCard(q, before.id)
  const problems: ErrorDetail[] = []
  const xattrKeys = (await writeCardXattr(q, { id: before.id, board_id: boardId }, input.xattr, false, problems)).keys
  if (problems.length) throw invalid(problems)
  const changes = [...(Object.keys(set) as (keyof CardsTable)[]).flatMap((k) => CHANGE_NAMES[k] ?? []), ...changedLinks, ...xattrKeys.map((k) => `xattr.${k}`)]
  if (changes.length === 0) return old
  if (changedLinks.includes('assignees')) await setUserLinks(q, 'card_assignees', before.id, links.assignees)
  if (changedLinks.includes('watchers')) await setUserLinks(q, 'card_watchers', before.id, links.watchers)
  if (changedLinks.includes('tags')) await setTagLinks(q, before.id, links.tags)
  await updateCardRow(q, before.id, { ...set, updated_at: at })
  const view = await viewOf(q, before.id)
  // A card's status is its list's: a change of list may change it.
  if (old.status?.id !== view.status?.id) changes.push('status')
  await announceChange(deps, tx, actor, old, view, changes)
  if (set.parent_id !== undefined) await writeParentLink(deps, tx, actor, before.id, before.parent_id, set.parent_id, at)
  return view
}

export const updateCardIn = async (deps: Deps, tx: Tx, actor: Actor, id: string, input: CardFields & { board?: string }): Promise<CardView> =>
  applyChange(deps, tx, actor, await cardToChange(tx.q, actor, id), input)

/**
 * What updateCardsIn changes on many cards at once: what stays on the card and in its list (its own columns, its
 * milestone, its parent, its custom fields); no move, no completion, no assignees, watchers or tags.
 */
const IN_PLACE: readonly string[] = [
  'title',
  'description',
  'priority',
  'start_date',
  'due_date',
  'archived',
  'trashed',
  'milestone',
  'parent',
  'xattr',
] satisfies (keyof CardFields)[]

/** Whether a change touches only what updateCardsIn can change on many cards at once (IN_PLACE). */
export const inPlaceOnly = (input: CardChange): boolean => Object.entries(input).every(([k, v]) => v === undefined || IN_PLACE.includes(k))

/**
 * The same change (inPlaceOnly) to many cards, set-based: the rows locked in one read, the boards checked once each,
 * what the change names checked once for each board (the milestone, the custom fields) or once for all (the parent:
 * one walk of its ancestors), the custom field values written with a DELETE per field and one INSERT, one UPDATE per
 * set of changed columns, the parent links replaced with one DELETE and one INSERT, and the events written together
 * as updateCardIn would write them one by one: card.deleted (moved to the trash), card.updated, then the card's
 * entity_link.deleted and entity_link.created (a card the change leaves as it was gets none). Returns each card
 * refused with the error updateCardIn would have thrown (missing, on a board the actor cannot see, the milestone or a
 * custom field refused on its board, the parent refused for it).
 */
export async function updateCardsIn(deps: Deps, tx: Tx, actor: Actor, ids: readonly string[], input: CardChange): Promise<Map<string, HttpError>> {
  const { q } = tx
  const { cards: locked, refused } = await lockedToChange(q, actor, ids)
  // A single change checks the milestone first, then the parent, then the custom fields: the first refusal is the one.
  const milestone = input.milestone == null ? undefined : await getMilestone(q, input.milestone)
  const milestoneRefused = (boardId: string) =>
    input.milestone != null && milestone?.board_id !== boardId ? invalid([{ path: 'milestone', message: 'No such milestone on this board.' }]) : undefined
  const reparented = input.parent == null ? [] : locked.filter((c) => !milestoneRefused(c.board_id) && c.parent_id !== input.parent)
  const parentRefused = input.parent == null ? new Map<string, HttpError>() : await checkParentOfMany(q, actor, reparented, input.parent)
  const xattrOf = new Map<string, XattrChange | HttpError>()
  if (input.xattr)
    for (const boardId of new Set(locked.map((c) => c.board_id))) {
      const problems: ErrorDetail[] = []
      const change = await checkXattrChange(q, boardId, input.xattr, problems)
      xattrOf.set(boardId, problems.length ? invalid(problems) : change)
    }
  const cards: CardsTable[] = []
  for (const card of locked) {
    const xattr = xattrOf.get(card.board_id)
    const refusal = milestoneRefused(card.board_id) ?? parentRefused.get(card.id) ?? (xattr instanceof HttpError ? xattr : undefined)
    if (refusal) refused.set(card.id, refusal)
    else cards.push(card)
  }
  const at = isoAt(deps.clock.now())
  // The custom field values first (a card whose values alone change is changed too), a board at a time.
  const xattrKeys = new Map<string, string[]>()
  for (const [boardId, change] of xattrOf)
    if (!(change instanceof HttpError))
      for (const [id, keys] of await writeXattrChange(
        q,
        change,
        cards.filter((c) => c.board_id === boardId).map((c) => c.id),
      ))
        xattrKeys.set(id, keys)
  const changed: { row: CardsTable; set: Partial<CardsTable>; changes: string[] }[] = []
  for (const row of cards) {
    const set = await changedColumns(q, row, input, undefined, at)
    const changes = [
      ...(Object.keys(set) as (keyof CardsTable)[]).flatMap((k) => CHANGE_NAMES[k] ?? []),
      ...(xattrKeys.get(row.id) ?? []).map((k) => `xattr.${k}`),
    ]
    if (changes.length) changed.push({ row, set, changes })
  }
  // The values come from the one input: cards whose changed columns are the same get the same SET.
  const bySet = new Map<string, typeof changed>()
  for (const c of changed) {
    const columns = Object.keys(c.set).sort().join()
    const group = bySet.get(columns)
    if (group) group.push(c)
    else bySet.set(columns, [c])
  }
  for (const group of bySet.values())
    await setCardColumns(
      q,
      group.map((c) => c.row.id),
      { ...group[0].set, updated_at: at },
    )
  // The parent links, each link event's source card as the card's own change would have seen it: one changed by this
  // request before that card (in the order of the ids) as it is now, one changed after it as it was.
  const order = new Map(changed.map((c, i) => [c.row.id, i]))
  const seen = (source: string, child: string): SourceBrief | undefined => {
    const i = order.get(source)
    if (i === undefined) return undefined
    const { row, set } = changed[i]
    return i < order.get(child)! ? { ...row, ...set } : row
  }
  const linkEvents = await writeParentLinks(
    deps,
    tx,
    actor,
    changed.filter((c) => c.set.parent_id !== undefined).map((c) => ({ child: c.row.id, from: c.row.parent_id, to: c.set.parent_id! })),
    at,
    seen,
  )
  const views = await eventCards(
    q,
    changed.map((c) => ({ ...c.row, ...c.set, updated_at: at })),
  )
  const data = await cardEventDatas(q, deps.config, views)
  // A card moved to the trash says so first (card.deleted, not for good), as a single change does.
  await emitEvents(
    deps,
    tx,
    data.flatMap((card, i): NewEvent[] => [
      ...(changed[i].set.trashed === 1 ? [{ name: 'card.deleted', boardId: views[i].board, data: { ...card, permanent: false }, actor } as NewEvent] : []),
      { name: 'card.updated', boardId: views[i].board, data: { ...card, changes: changed[i].changes }, actor },
      ...(linkEvents.get(card.id) ?? []),
    ]),
  )
  return refused
}

/**
 * Gives many cards a status, set-based: each card goes to its board's first list bound to the status (it stays where
 * it is when its list has it), the cards of a board that move moved together (moveCardsTo), as updateCardIn would
 * move them one by one. A card whose list has the status but whose completion the rule would change (a card open in a
 * `completed` list) goes alone, in a savepoint. Returns each card refused, with the error its change alone would give.
 */
export async function setStatusIn(deps: Deps, tx: Tx, actor: Actor, ids: readonly string[], statusId: string): Promise<Map<string, HttpError>> {
  const { q } = tx
  const { cards, refused } = await lockedToChange(q, actor, ids)
  const status = await getStatus(q, statusId)
  const listsOf = new Map<string, ListsTable[]>()
  const moving = new Map<string, { to: ListsTable; cards: CardsTable[] }>()
  const alone: CardsTable[] = []
  for (const card of cards) {
    if (status?.board_id !== card.board_id) {
      refused.set(card.id, invalid([{ path: 'status', message: 'No such status on this board.' }]))
      continue
    }
    if (!listsOf.has(card.board_id)) listsOf.set(card.board_id, await listsOfBoard(q, card.board_id))
    const lists = listsOf.get(card.board_id)!
    const from = lists.find((l) => l.id === card.list_id)
    const to = from?.status_id === status.id ? from : lists.find((l) => l.status_id === status.id)
    if (!to) {
      refused.set(card.id, invalid([{ path: 'status', message: 'No list of this board has this status; bind a list to it first.' }]))
      continue
    }
    if (!from) alone.push(card)
    else if (to.id !== from.id) {
      const group = moving.get(to.id) ?? { to, cards: [] }
      group.cards.push(card)
      moving.set(to.id, group)
    } else if (placeCard(lists, { list: from, completed: card.completed === 1 }, { list: to }).completed !== (card.completed === 1)) alone.push(card)
  }
  for (const { to, cards: group } of moving.values()) await moveCardsTo(deps, tx, actor, group, to)
  for (const card of alone)
    try {
      await tx.savepoint((sp) => updateCardIn(deps, sp, actor, card.id, { status: statusId }))
    } catch (err) {
      if (!(err instanceof HttpError)) throw err
      refused.set(card.id, err)
    }
  return refused
}

/**
 * Adds and removes assignees (or tags) on many cards, set-based: the rows locked in one read, what each card has read
 * together, one DELETE and one INSERT of links, one UPDATE of updated_at, and the events written together as single
 * changes would write them (card.updated naming the field, then card.assigned for each person added and
 * card.unassigned for each removed), the people added told in their inboxes. A card whose board the ids do not fit
 * (a tag of another board, a user that does not exist) is refused with the error its single change would give; a card
 * the change leaves as it was is counted and gets no event.
 */
export async function changeLinksIn(
  deps: Deps,
  tx: Tx,
  actor: Actor,
  ids: readonly string[],
  field: 'assignees' | 'tags',
  add: readonly string[],
  remove: readonly string[],
): Promise<Map<string, HttpError>> {
  const { q } = tx
  const { cards, refused } = await lockedToChange(q, actor, ids)
  const adding = [...new Set(add)]
  const [links, users, tags] = await together(() =>
    Promise.all([
      loadCardLinks(
        q,
        cards.map((c) => c.id),
      ),
      field === 'assignees' ? getUsers(q, adding) : [],
      field === 'tags' ? getTags(q, adding) : [],
    ]),
  )
  const known = new Set(field === 'assignees' ? users.map((u) => u.id) : [])
  const changed: { card: CardsTable; before: string[]; after: string[] }[] = []
  for (const card of cards) {
    if (field === 'assignees' ? known.size !== adding.length : tags.length !== adding.length || tags.some((t) => t.board_id !== card.board_id)) {
      const message = field === 'assignees' ? 'Every entry must be an existing user id.' : 'Every entry must be a tag id of this board.'
      refused.set(card.id, invalid([{ path: field, message }]))
      continue
    }
    const before = links[field].get(card.id) ?? []
    const after = [...new Set([...before, ...adding])].filter((x) => !remove.includes(x))
    if (!sameSet(before, after)) changed.push({ card, before, after })
  }
  if (changed.length === 0) return refused
  const at = isoAt(deps.clock.now())
  const table = field === 'assignees' ? 'card_assignees' : 'card_tags'
  await changeLinks(
    q,
    table,
    changed.filter((c) => c.before.some((x) => remove.includes(x))).map((c) => c.card.id),
    remove,
    changed.flatMap((c) => c.after.filter((x) => !c.before.includes(x)).map((x): [string, string] => [c.card.id, x])),
  )
  await setCardColumns(
    q,
    changed.map((c) => c.card.id),
    { updated_at: at },
  )
  const views = await eventCards(
    q,
    changed.map((c) => ({ ...c.card, updated_at: at })),
  )
  const data = await cardEventDatas(q, deps.config, views)
  const gone = field === 'assignees' ? await getUsers(q, [...new Set(changed.flatMap((c) => c.before.filter((x) => !c.after.includes(x))))]) : []
  const nameOf = new Map(gone.map((u) => [u.id, u.name]))
  await emitEvents(
    deps,
    tx,
    data.flatMap((card, i): NewEvent[] => {
      const { before, after } = changed[i]
      const boardId = views[i].board
      return [
        { name: 'card.updated', boardId, data: { ...card, changes: [field] }, actor },
        ...(field === 'assignees'
          ? [
              ...views[i].assignees
                .filter((u) => !before.includes(u))
                .map((u): NewEvent => ({
                  name: 'card.assigned',
                  boardId,
                  data: { ...card, user: card.assignees.find((a) => a.id === u) ?? { id: u, name: null } },
                  actor,
                })),
              ...before
                .filter((u) => !after.includes(u))
                .map((u): NewEvent => ({ name: 'card.unassigned', boardId, data: { ...card, user: { id: u, name: nameOf.get(u) ?? null } }, actor })),
            ]
          : []),
      ]
    }),
  )
  if (field === 'assignees')
    for (const [i, { card, before }] of changed.entries())
      await notify(deps, tx, actor, { kind: 'assigned', users: views[i].assignees.filter((u) => !before.includes(u)), card })
  return refused
}

export const updateCard = (deps: Deps, actor: Actor, id: string, input: CardFields & { board?: string }): Promise<CardView> =>
  deps.db.tx((tx) => updateCardIn(deps, tx, actor, id, input))

export async function moveCardIn(deps: Deps, tx: Tx, actor: Actor, id: string, input: { list: string; position?: number; board?: string }): Promise<CardView> {
  const card = await cardToChange(tx.q, actor, id)
  const found = await getList(tx.q, input.list)
  // A list on a board the caller cannot see answers like an unknown one, so its existence does not leak.
  const list = found && (await seesBoard(tx.q, actor, found.board_id)) ? found : undefined
  const boardId = input.board ?? list?.board_id ?? card.board_id
  if (!list || list.board_id !== boardId) throw invalid([{ path: 'list', message: input.board ? 'No such list on the target board.' : 'No such list.' }])
  return applyChange(deps, tx, actor, card, { list: input.list, position: input.position, board: boardId })
}

export const moveCard = (deps: Deps, actor: Actor, id: string, input: { list: string; position?: number; board?: string }): Promise<CardView> =>
  deps.db.tx((tx) => moveCardIn(deps, tx, actor, id, input))

/**
 * Deletes cards for good, set-based: one DELETE (what they own goes with them, their dependencies and links each
 * announced first, their subtasks taken off them), then each card's comment.deleted events and its card.deleted,
 * written together in the order single deletions would write them.
 */
async function deleteForGood(deps: Deps, tx: Tx, actor: Actor, cards: readonly CardsTable[]): Promise<void> {
  const { q } = tx
  const ids = cards.map((c) => c.id)
  const data = await cardEventDatas(q, deps.config, await eventCards(q, cards))
  const comments = await commentsGoneEvents(deps, q, actor, cards)
  // Their dependencies and links go with them (ON DELETE CASCADE), each announced; their subtasks lose their parent.
  await announceDependenciesOfCardsGone(deps, tx, actor, ids)
  await detachLinksOfCardsGone(deps, tx, actor, ids, isoAt(deps.clock.now()))
  await deleteCardRows(q, ids)
  await emitEvents(
    deps,
    tx,
    cards.flatMap((card, i): NewEvent[] => [
      ...(comments.get(card.id) ?? []),
      { name: 'card.deleted', boardId: card.board_id, data: { ...data[i], permanent: true }, actor },
    ]),
  )
}

export function trashCard(deps: Deps, actor: Actor, id: string, permanent: boolean): Promise<void> {
  return deps.db.tx(async (tx) => {
    const card = await cardToChange(tx.q, actor, id)
    if (permanent) await deleteForGood(deps, tx, actor, [card])
    else if (card.trashed === 0) await applyChange(deps, tx, actor, card, { trashed: true })
  })
}

/**
 * Moves up to `limit` cards of a list to the end of another list of the same board, in their order; returns how many
 * (moveCardsTo).
 */
export async function moveCardsOfList(
  deps: Deps,
  tx: Tx,
  actor: Actor,
  fromList: string,
  toList: string,
  limit: number,
  /** A check the caller makes in the same transaction (it may still see the list), read beside the cards. */
  check?: () => Promise<unknown>,
): Promise<number> {
  const [cards, to] = await together(() => Promise.all([cardsOfList(tx.q, fromList, limit), getList(tx.q, toList), check?.()]))
  if (cards.length) await moveCardsTo(deps, tx, actor, cards, to!)
  return cards.length
}

/**
 * Moves cards (rows the actor may change, none of them in `to` already) to the end of `to`, a list of their board, in
 * their order. Set-based: one update for them all (and one more for those whose completion the move changes, by the
 * completion rule), and their events written together, as the same moves made one at a time would write them:
 * card.updated naming list and position (and completed, and status when the lists' statuses differ), card.moved, and
 * card.completed or card.reopened where it changed.
 */
async function moveCardsTo(deps: Deps, tx: Tx, actor: Actor, cards: readonly CardsTable[], to: ListsTable): Promise<void> {
  const { q } = tx
  const fromIds = [...new Set(cards.map((c) => c.list_id))]
  // The place at the end of the list (locked), the lists the cards leave and the board's name, together; beside them
  // the board's webhooks and event automations, which its events read (emitEvents).
  const [positions, fromLists, board] = await together(() => {
    readAheadReceivers(q, to.board_id)
    readAheadEventAutomations(q, to.board_id)
    return Promise.all([appendedPositions(q, 'cards', to.id, cards.length), Promise.all(fromIds.map((id) => getList(q, id))), boardRef(q, to.board_id)])
  })
  if (!positions) {
    for (const card of cards) await applyChange(deps, tx, actor, card, { list: to.id })
    return
  }
  const at = isoAt(deps.clock.now())
  const froms = new Map<string, ListsTable>(fromIds.map((id, i) => [id, fromLists[i]!]))
  const changed = new Map<string, ReturnType<typeof completionColumns>>()
  for (const [id, from] of froms) {
    const completion = completionOfMove(
      cards.filter((c) => c.list_id === id),
      from.category,
      to.category,
      at,
    )
    if (!completion) continue
    await setCardColumns(q, completion.ids, completion.set)
    for (const card of completion.ids) changed.set(card, completion.set)
  }
  // What the events carry, and nothing a card's view adds (a chunk reads no more than its events need): read before
  // the move, which changes none of it, so that the events are made while the server writes the move (ahead).
  const views = await eventCards(
    q,
    cards.map((c, i) => ({ ...c, list_id: to.id, position: positions[i], updated_at: at, ...changed.get(c.id) })),
    new Map([[to.id, to.category]]),
  )
  const known = { board: { id: board.id, name: board.name ?? '' }, list: { id: to.id, name: to.name } }
  const data = await cardEventDatas(q, deps.config, views, known)
  await moveCardRows(
    q,
    cards.map((c, i) => ({ id: c.id, position: positions[i] })),
    to.id,
    at,
  )
  const toRef = { id: to.id, name: to.name }
  await emitEvents(
    deps,
    tx,
    data.flatMap((card, i): NewEvent[] => {
      const from = froms.get(cards[i].list_id)!
      const completes = changed.has(card.id)
      const changes = [...(completes ? ['list', 'position', 'completed'] : ['list', 'position']), ...(from.status_id !== to.status_id ? ['status'] : [])]
      return [
        { name: 'card.updated', boardId: board.id, data: { ...card, changes }, actor },
        { name: 'card.moved', boardId: board.id, data: { ...card, from_list: { id: from.id, name: from.name }, to_list: toRef, from_board: board }, actor },
        ...(completes ? [{ name: card.completed ? 'card.completed' : 'card.reopened', boardId: board.id, data: card, actor } as NewEvent] : []),
      ]
    }),
  )
  for (const view of views)
    if (changed.has(view.id) && view.completed)
      await notify(deps, tx, actor, { kind: 'completed', users: view.watchers, card: { id: view.id, board_id: view.board } })
}

/**
 * Cards to change, locked, in the order of `ids`, with each one refused (missing, or on a board the actor cannot see)
 * and the error a change of it alone would have thrown.
 */
async function lockedToChange(q: Q, actor: Actor, ids: readonly string[]): Promise<{ cards: CardsTable[]; refused: Map<string, HttpError> }> {
  const rows = new Map((await lockCards(q, ids)).map((r) => [r.id, r]))
  const boards = new Map<string, HttpError | undefined>()
  const cards: CardsTable[] = []
  const refused = new Map<string, HttpError>()
  for (const id of ids) {
    const row = rows.get(id)
    if (row && !boards.has(row.board_id))
      boards.set(
        row.board_id,
        await visibleBoard(q, actor, row.board_id, 'card').then(
          () => undefined,
          (err: unknown) => {
            if (err instanceof HttpError) return err
            throw err
          },
        ),
      )
    const refusal = row ? boards.get(row.board_id) : notFound('card')
    if (refusal) refused.set(id, refusal)
    else cards.push(row!)
  }
  return { cards, refused }
}

/**
 * Moves many cards to a list, set-based where it can (moveCardsTo): the cards already on the list's board and not in
 * it. A move to another board, or within the list, goes card by card. Returns each card refused, with the error a move
 * of it alone would have given.
 */
export async function moveCardsIn(
  deps: Deps,
  tx: Tx,
  actor: Actor,
  ids: readonly string[],
  input: { list: string; board?: string },
): Promise<Map<string, HttpError>> {
  const { q } = tx
  const { cards, refused } = await lockedToChange(q, actor, ids)
  const found = await getList(q, input.list)
  const list = found && (await seesBoard(q, actor, found.board_id)) ? found : undefined
  const together =
    list && (input.board === undefined || input.board === list.board_id) ? cards.filter((c) => c.board_id === list.board_id && c.list_id !== list.id) : []
  if (together.length) await moveCardsTo(deps, tx, actor, together, list!)
  const moved = new Set(together.map((c) => c.id))
  for (const card of cards.filter((c) => !moved.has(c.id)))
    try {
      await tx.savepoint((sp) => moveCardIn(deps, sp, actor, card.id, input))
    } catch (err) {
      if (!(err instanceof HttpError)) throw err
      refused.set(card.id, err)
    }
  return refused
}

/**
 * Completes (or re-opens) many cards, set-based: by the completion rule a card may move (to its board's first
 * `completed` list, or out of one: moveCardsTo, per target list) or stay in its list (setCompletion). Returns each
 * card refused, with the error its change alone would have given.
 */
export async function completeCardsIn(deps: Deps, tx: Tx, actor: Actor, ids: readonly string[], completed: boolean): Promise<Map<string, HttpError>> {
  const { q } = tx
  const { cards, refused } = await lockedToChange(q, actor, ids)
  const listsOf = new Map<string, ListsTable[]>()
  const staying: CardsTable[] = []
  const moving = new Map<string, { to: ListsTable; cards: CardsTable[] }>()
  for (const card of cards) {
    if (!listsOf.has(card.board_id)) listsOf.set(card.board_id, await listsOfBoard(q, card.board_id))
    const lists = listsOf.get(card.board_id)!
    const from = lists.find((l) => l.id === card.list_id) ?? (await getList(q, card.list_id))!
    const placed = placeCard(lists, { list: from, completed: card.completed === 1 }, { completed })
    if (placed.list.id !== from.id) {
      const group = moving.get(placed.list.id) ?? { to: placed.list, cards: [] }
      group.cards.push(card)
      moving.set(placed.list.id, group)
    } else if (placed.completed !== (card.completed === 1)) staying.push(card)
  }
  if (staying.length) await setCompletion(deps, tx, actor, staying, completed)
  for (const { to, cards: group } of moving.values()) await moveCardsTo(deps, tx, actor, group, to)
  return refused
}

/**
 * card.updated naming `changes` for each of `cards` (rows as they now are), written together; with `extra`, more events
 * of a card right after its card.updated, as a single change of that card would write them.
 */
async function announceUpdated(
  deps: Deps,
  tx: Tx,
  actor: Actor,
  cards: readonly CardsTable[],
  changes: readonly string[],
  extra?: (card: EventData<'card.created'>) => NewEvent[],
): Promise<CardView[]> {
  const views = await cardViews(tx.q, [...cards])
  const data = await cardEventDatas(tx.q, deps.config, views)
  await emitEvents(
    deps,
    tx,
    data.flatMap((card): NewEvent[] => [
      { name: 'card.updated', boardId: card.board.id, data: { ...card, changes: [...changes] }, actor },
      ...(extra?.(card) ?? []),
    ]),
  )
  return views
}

/**
 * Completes (or re-opens) cards that stay in their lists: one UPDATE, and each card's card.updated naming `completed`
 * and its card.completed (or card.reopened) written together; the watchers of completed ones are told.
 */
async function setCompletion(deps: Deps, tx: Tx, actor: Actor, cards: readonly CardsTable[], completed: boolean): Promise<void> {
  const at = isoAt(deps.clock.now())
  const set = { ...completionColumns(completed, at), updated_at: at }
  await setCardColumns(
    tx.q,
    cards.map((c) => c.id),
    set,
  )
  const views = await announceUpdated(
    deps,
    tx,
    actor,
    cards.map((c) => ({ ...c, ...set })),
    ['completed'],
    (card) => [{ name: completed ? 'card.completed' : 'card.reopened', boardId: card.board.id, data: card, actor }],
  )
  if (completed)
    for (const view of views) await notify(deps, tx, actor, { kind: 'completed', users: view.watchers, card: { id: view.id, board_id: view.board } })
}

/**
 * Completes (or re-opens) up to `limit` cards of a list whose category changed into (or out of) `completed`; returns
 * how many. They stay in their list (the list is what moved: setCompletion).
 */
export async function settleCardsOfList(deps: Deps, tx: Tx, actor: Actor, listId: string, completed: boolean, limit: number): Promise<number> {
  const cards = await cardsOfListToSettle(tx.q, listId, completed, limit)
  if (cards.length) await setCompletion(deps, tx, actor, cards, completed)
  return cards.length
}

/** Cards announced per transaction when their list's status changed. */
const ANNOUNCE_CHUNK = 250

/**
 * Announces the cards of a list whose status changed (the list was bound to another status, or to none): each card not
 * in the trash gets card.updated naming `status`, a chunk per transaction after the change committed.
 */
export async function announceStatusOfList(deps: Deps, actor: Actor, listId: string): Promise<void> {
  let after = ''
  await inChunks(deps.db, ANNOUNCE_CHUNK, async (tx, size) => {
    const cards = await cardsOfListAfter(tx.q, listId, after, size)
    if (cards.length === 0) return 0
    await announceUpdated(deps, tx, actor, cards, ['status'])
    // The next chunk starts after this one only once it committed (a transaction that runs again reads the same cards).
    const last = cards[cards.length - 1].id
    tx.afterCommit(() => (after = last))
    return cards.length
  })
}

/**
 * Announces cards changed by a change to something they show (a custom field's values gone, their status renamed),
 * in the caller's transaction: card.updated naming `changes` for each card, set-based, a chunk of ANNOUNCE_CHUNK cards
 * read together and their events written with one insert (emitEvents).
 */
export async function announceCardsIn(deps: Deps, tx: Tx, actor: Actor, ids: readonly string[], changes: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += ANNOUNCE_CHUNK) {
    await announceUpdated(deps, tx, actor, await cardsByIds(tx.q, ids.slice(i, i + ANNOUNCE_CHUNK)), changes)
  }
}

/** Announces the cards (not in the trash) of these lists with card.updated naming `status`: their status was renamed or recategorized. */
export async function announceStatusOfListsIn(deps: Deps, tx: Tx, actor: Actor, listIds: readonly string[]): Promise<void> {
  await announceCardsIn(deps, tx, actor, await cardIdsOfLists(tx.q, listIds), ['status'])
}

/** Takes up to `limit` cards off a milestone being deleted, set-based, each with card.updated naming `milestone`; returns how many. */
export async function clearMilestoneOfCards(deps: Deps, tx: Tx, actor: Actor, milestoneId: string, limit: number): Promise<number> {
  const cards = await cardsOfMilestone(tx.q, milestoneId, limit)
  if (cards.length === 0) return 0
  const set = { milestone_id: null, updated_at: isoAt(deps.clock.now()) }
  await setCardColumns(
    tx.q,
    cards.map((c) => c.id),
    set,
  )
  await announceUpdated(
    deps,
    tx,
    actor,
    cards.map((c) => ({ ...c, ...set })),
    ['milestone'],
  )
  return cards.length
}

/** Deletes up to `limit` cards of a board for good, set-based, with their events (deleteForGood); returns how many. */
export async function deleteCardsOfBoard(deps: Deps, tx: Tx, actor: Actor, boardId: string, limit: number): Promise<number> {
  const cards = await cardsOfBoard(tx.q, boardId, limit)
  if (cards.length) await deleteForGood(deps, tx, actor, cards)
  return cards.length
}

/**
 * Gives up to `limit` cards of a board the board's new key prefix (numbers kept), set-based: one UPDATE, and their
 * card.updated events (changes: key) written together.
 */
export async function rekeyCardsOfBoard(deps: Deps, tx: Tx, actor: Actor, boardId: string, prefix: string, limit: number): Promise<number> {
  const { q } = tx
  const cards = await cardsToRekey(q, boardId, prefix, limit)
  await rekeyCards(
    q,
    cards.map((c) => c.id),
    prefix,
  )
  await announceUpdated(
    deps,
    tx,
    actor,
    cards.map((c) => ({ ...c, key: `${prefix}-${c.key_num}` })),
    ['key'],
  )
  return cards.length
}
