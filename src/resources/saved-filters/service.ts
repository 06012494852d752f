// Saved filters: a named card filter, private to its creator unless shared (with its board's members, or with the whole
// workspace when it has no board: owners and admins only). Its filter, sort and expand are checked when saved as
// GET /v1/cards checks them. The creator changes and deletes it; owners and admins also a shared one. Each change emits
// its event to those who see the filter (a private one's to its creator only: the event's audience).
import { managesSavedFilter } from '../../access/records.js'
import { type Actor, isAdmin } from '../../access/roles.js'
import { visibleBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q, Tx } from '../../db/database.js'
import type { SavedFiltersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { badRequest, forbidden, HttpError, invalidField, notFound } from '../../errors.js'
import { emitEvent } from '../../events/emit.js'
import { FilterError } from '../../filter/error.js'
import { filterExpression } from '../../filter/index.js'
import { newId } from '../../ids.js'
import { keyedSortOf, listPage, parseExpand, parseSort, type ListParams } from '../../query/list-page.js'
import { getBoards } from '../boards/published.js'
import { CARD_LIST } from '../cards/query.js'
import { savedFilterEventData, savedFilterViews } from './present.js'
import { SAVED_FILTER_LIST } from './query.js'
import type { CreateSavedFilterInput, SavedFilterView, UpdateSavedFilterInput } from './schema.js'
import { deleteSavedFilterRow, getSavedFilter, insertSavedFilter, savedFilterSeenBy, updateSavedFilterRow, visibleSavedFiltersQuery } from './store.js'

async function visible(q: Q, actor: Actor, id: string): Promise<SavedFiltersTable> {
  const row = await savedFilterSeenBy(q, actor.user, id)
  if (!row) throw notFound('saved filter')
  return row
}

/** One the actor sees and may change: its creator, or (a shared one) an owner or admin; 403 for others who see it. */
async function toManage(q: Q, actor: Actor, id: string, action: string): Promise<SavedFiltersTable> {
  const row = await visible(q, actor, id)
  if (!managesSavedFilter(actor.user, row))
    throw forbidden(`Only the saved filter's creator (and, for a shared one, workspace owners and admins) can ${action}.`)
  return row
}

/** A 400 of the list machinery (an unknown sort field or relation) as the answer to a body: the same message, naming the field. */
function naming<T>(path: string, check: () => T): T {
  try {
    return check()
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) throw badRequest(err.message, [{ path, message: err.message }])
    throw err
  }
}

/** "" is no sort (or no expand), as in the list's query parameters. */
const orNone = (v: string | null | undefined) => (v === '' ? null : v)

/**
 * Checks what will be saved as GET /v1/cards checks its parameters: the filter parsed and its fields known (400
 * `invalid_filter` with the position), the sort's fields (a custom field key must be one of the board's, or of some
 * board when it has none) and the relations to expand (400 naming the field).
 */
async function checkQuery(deps: Deps, input: { filter?: string; sort?: string | null; expand?: string | null }, board: string | null) {
  if (input.filter !== undefined)
    try {
      filterExpression('cards', input.filter)
    } catch (err) {
      if (err instanceof FilterError) throw new HttpError(400, err.code, err.message, [{ path: 'filter', message: err.message }])
      throw err
    }
  const { sort, expand } = input
  if (sort) {
    const keyed = naming('sort', () => keyedSortOf(sort, CARD_LIST))
    if (keyed) {
      const order = await CARD_LIST.keyed!.resolve(deps.db, keyed.key, { board: board ?? undefined })
      if (typeof order === 'string') throw badRequest(order, [{ path: 'sort', message: order }])
    }
    const rest = keyed ? keyed.rest : sort
    if (rest) naming('sort', () => parseSort(rest, CARD_LIST.sort))
  }
  if (expand) naming('expand', () => parseExpand(expand, CARD_LIST.expand))
}

/** Only owners and admins share with the whole workspace (shared, with no board). */
function checkSharing(actor: Actor, shared: boolean, board: string | null) {
  if (shared && board === null && !isAdmin(actor))
    throw invalidField('shared', 'Only owners and admins share a saved filter with the whole workspace; give it a board to share it with its members.')
}

/** Its event's scope: a shared one's board (or the workspace); a private one's creator alone. */
const scopeOf = (row: SavedFiltersTable) => ({ boardId: row.board_id, ...(row.shared === 1 ? {} : { audience: row.created_by }) })

async function boardRef(q: Q, id: string | null) {
  if (id === null) return null
  const [board] = await getBoards(q, [id])
  return { id, name: board?.name ?? '' }
}

type SavedFilterEvent = 'saved_filter.created' | 'saved_filter.updated' | 'saved_filter.deleted'

async function announce(deps: Deps, tx: Tx, actor: Actor, name: SavedFilterEvent, row: SavedFiltersTable, view: SavedFilterView) {
  const data = savedFilterEventData(view, await boardRef(tx.q, row.board_id))
  await emitEvent(deps, tx, { name, data, actor, ...scopeOf(row) })
}

export const getSavedFilterFor = async (deps: Deps, actor: Actor, id: string): Promise<SavedFilterView> =>
  (await savedFilterViews(deps.db.q, [await visible(deps.db.q, actor, id)]))[0]

/** The saved filters the caller sees (their own and the shared ones), or those of one board. */
export function listSavedFilters(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleSavedFiltersQuery(q, actor.user, params.board),
    SAVED_FILTER_LIST,
    params,
    (rows: SavedFiltersTable[]) => savedFilterViews(q, rows),
    { anchored: Boolean(params.board) },
  )
}

export async function createSavedFilter(deps: Deps, actor: Actor, input: CreateSavedFilterInput): Promise<SavedFilterView> {
  const board = input.board ?? null
  const shared = input.shared ?? false
  const query = { filter: input.filter ?? '', sort: orNone(input.sort) ?? null, expand: orNone(input.expand) ?? null }
  checkSharing(actor, shared, board)
  // Checked before the transaction (a custom field sort reads the fields as a list request would), the board first: a
  // sort names a field of a board the caller sees.
  if (board !== null) await visibleBoard(deps.db.q, actor, board)
  await checkQuery(deps, query, board)
  return deps.db.tx(async (tx) => {
    if (board !== null) await visibleBoard(tx.q, actor, board)
    const at = isoAt(deps.clock.now())
    const row: SavedFiltersTable = {
      id: newId(),
      name: input.name,
      resource: input.resource ?? 'cards',
      ...query,
      board_id: board,
      shared: shared ? 1 : 0,
      created_by: actor.user.id,
      created_at: at,
      updated_at: at,
    }
    await insertSavedFilter(tx.q, row)
    const [view] = await savedFilterViews(tx.q, [row])
    await announce(deps, tx, actor, 'saved_filter.created', row, view)
    return view
  })
}

/** What an update will write, checked against the saved filter as it is: rights, sharing, board, filter, sort, expand. */
async function checkedUpdate(q: Q, actor: Actor, id: string, input: UpdateSavedFilterInput) {
  const row = await toManage(q, actor, id, 'change it')
  const board = input.board !== undefined ? input.board : row.board_id
  const shared = input.shared ?? row.shared === 1
  // The sharing is judged when it changes: a creator no longer an admin may still rename their workspace-wide one.
  if (input.shared !== undefined || input.board !== undefined) checkSharing(actor, shared, board)
  if (input.board != null && input.board !== row.board_id) await visibleBoard(q, actor, input.board)
  const set: Partial<SavedFiltersTable> = {}
  if (input.name !== undefined) set.name = input.name
  if (input.filter !== undefined) set.filter = input.filter
  if (input.sort !== undefined) set.sort = orNone(input.sort)
  if (input.expand !== undefined) set.expand = orNone(input.expand)
  if (input.board !== undefined) set.board_id = input.board
  if (input.shared !== undefined) set.shared = input.shared ? 1 : 0
  // A new board may not have the custom field the sort names: the sort is checked again then.
  const sort = input.sort !== undefined ? set.sort : input.board !== undefined ? row.sort : undefined
  return { set, check: { filter: set.filter, sort, expand: set.expand }, board }
}

export async function updateSavedFilter(deps: Deps, actor: Actor, id: string, input: UpdateSavedFilterInput): Promise<SavedFilterView> {
  // The query is checked before the transaction (a custom field sort reads the fields as a list request would).
  const first = await checkedUpdate(deps.db.q, actor, id, input)
  await checkQuery(deps, first.check, first.board)
  return deps.db.tx(async (tx) => {
    const { set } = await checkedUpdate(tx.q, actor, id, input)
    await updateSavedFilterRow(tx.q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    const next = (await getSavedFilter(tx.q, id))!
    const [view] = await savedFilterViews(tx.q, [next])
    await announce(deps, tx, actor, 'saved_filter.updated', next, view)
    return view
  })
}

export function deleteSavedFilter(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const row = await toManage(tx.q, actor, id, 'delete it')
    const [view] = await savedFilterViews(tx.q, [row])
    if (!(await deleteSavedFilterRow(tx.q, id))) throw notFound('saved filter')
    await announce(deps, tx, actor, 'saved_filter.deleted', row, view)
  })
}
