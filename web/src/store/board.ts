// The open board: its lists, cards, tags, custom fields and the workspace's users, as signals that the board view reads
// and the change feed (live/feed.ts) patches. Cards are applied idempotently: an older `updated` never wins.
import { batch, computed, signal } from '@preact/signals'
import { ApiError, api, ok, type Board, type Card, type List, type Schemas, type Tag, type User } from '../api/client'
import { onEvents } from '../live/feed'
import { positionAt } from './positions'
import { toastError } from './toast'

export const board = signal<Board | null>(null)
export const lists = signal<List[]>([])
export const cards = signal<ReadonlyMap<string, Card>>(new Map())
export const tags = signal<Tag[]>([])
export const fields = signal<Schemas['XattrField'][]>([])
export const users = signal<ReadonlyMap<string, User>>(new Map())
/** The filter the cards were loaded with ('' for none), and the API's error for it. */
export const filter = signal('')
export const filterError = signal<ApiError | null>(null)
export const loading = signal(false)
export const loadError = signal<string | null>(null)

const byPosition = (a: Card, b: Card) => a.position - b.position || a.created.localeCompare(b.created)

/** Each list's cards in order (not archived, not in the trash). */
export const cardsByList = computed(() => {
  const out = new Map<string, Card[]>(lists.value.map((l) => [l.id, []]))
  for (const c of cards.value.values()) if (!c.archived && !c.trashed) out.get(c.list)?.push(c)
  for (const list of out.values()) list.sort(byPosition)
  return out
})

async function allPages<T>(load: (page: number) => Promise<{ items: T[]; totalPages: number }>, max = 20): Promise<T[]> {
  const out: T[] = []
  for (let page = 1; page <= max; page++) {
    const answer = await load(page)
    out.push(...answer.items)
    if (page >= answer.totalPages) break
  }
  return out
}

async function loadCards(boardId: string, filterText: string): Promise<Card[]> {
  return allPages((page) =>
    ok(
      api.GET('/v1/cards', {
        params: { query: { board: boardId, per_page: 500, page, archived: 'false', trashed: 'false', ...(filterText ? { filter: filterText } : {}) } },
      }),
    ),
  )
}

let loadedUsers = false
export async function loadUsers(): Promise<void> {
  if (loadedUsers) return
  const all = await allPages((page) => ok(api.GET('/v1/users', { params: { query: { per_page: 500, page } } })), 4)
  users.value = new Map(all.map((u) => [u.id, u]))
  loadedUsers = true
}

/** Loads a board and everything its view shows; a filter the API refuses leaves the cards as they were. */
export async function openBoard(id: string, filterText: string): Promise<void> {
  loading.value = true
  loadError.value = null
  try {
    const [b, ls, ts, fs] = await Promise.all([
      ok(api.GET('/v1/boards/{id}', { params: { path: { id } } })),
      ok(api.GET('/v1/lists', { params: { query: { board: id, per_page: 500, sort: 'position' } } })),
      ok(api.GET('/v1/tags', { params: { query: { board: id, per_page: 500 } } })),
      ok(api.GET('/v1/xattr', { params: { query: { board: id, per_page: 500 } } })),
      loadUsers(),
    ])
    let loaded: Card[] | null = null
    let refused: ApiError | null = null
    try {
      loaded = await loadCards(id, filterText)
    } catch (err) {
      if (err instanceof ApiError && err.status === 400 && filterText) {
        refused = err
        loaded = board.value?.id === id ? null : await loadCards(id, '')
      } else throw err
    }
    batch(() => {
      board.value = b.board
      lists.value = ls.items
      tags.value = ts.items
      fields.value = fs.items
      if (loaded) cards.value = new Map(loaded.map((c) => [c.id, c]))
      filter.value = refused ? filter.value : filterText
      filterError.value = refused
    })
  } catch (err) {
    loadError.value = err instanceof ApiError && err.status === 404 ? 'No such board, or you cannot see it.' : String((err as Error).message)
  } finally {
    loading.value = false
  }
}

export function closeBoard(): void {
  batch(() => {
    board.value = null
    lists.value = []
    cards.value = new Map()
    filterError.value = null
  })
}

/** Puts a card in (or replaces it), unless the one held is newer. */
export function applyCard(card: Card): void {
  const held = cards.value.get(card.id)
  if (held && held.updated > card.updated) return
  if (board.value && card.board !== board.value.id) return removeCard(card.id)
  const next = new Map(cards.value)
  next.set(card.id, card)
  cards.value = next
}

export function removeCard(id: string): void {
  if (!cards.value.has(id)) return
  const next = new Map(cards.value)
  next.delete(id)
  cards.value = next
}

/** Reads one card again (after a change elsewhere); gone or no longer visible, it leaves the board. */
export async function refreshCard(id: string): Promise<void> {
  const b = board.value
  if (!b) return
  try {
    applyCard((await ok(api.GET('/v1/cards/{id}', { params: { path: { id } } }))).card)
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) removeCard(id)
    else throw err
  }
}

/** Reads every card of the open board again (with its filter). */
export async function reloadCards(): Promise<void> {
  const b = board.value
  if (!b) return
  const loaded = await loadCards(b.id, filter.value)
  if (board.value?.id === b.id) cards.value = new Map(loaded.map((c) => [c.id, c]))
}

export async function reloadLists(): Promise<void> {
  const b = board.value
  if (!b) return
  const ls = await ok(api.GET('/v1/lists', { params: { query: { board: b.id, per_page: 500, sort: 'position' } } }))
  if (board.value?.id === b.id) lists.value = ls.items
}

/**
 * Moves a card to `index` in `listId` at once (at its new neighbours' midpoint), then asks the API; when the answer's
 * position differs (the server renumbered), that list is read again; when it fails, the card goes back.
 */
export async function moveCard(cardId: string, listId: string, index: number): Promise<void> {
  const card = cards.value.get(cardId)
  if (!card) return
  const others = (cardsByList.value.get(listId) ?? []).filter((c) => c.id !== cardId)
  const position = positionAt(others, index)
  if (card.list === listId && (cardsByList.value.get(listId) ?? []).indexOf(card) === index) return
  const optimistic = { ...card, list: listId, position: position ?? (others.at(-1)?.position ?? 0) + 1 }
  const next = new Map(cards.value)
  next.set(cardId, optimistic)
  cards.value = next
  try {
    const moved = (
      await ok(api.POST('/v1/cards/{id}/move', { params: { path: { id: cardId } }, body: { list: listId, ...(position === undefined ? {} : { position }) } }))
    ).card
    applyCard(moved)
    if (position !== undefined && moved.position !== position) await reloadCards()
  } catch (err) {
    const back = new Map(cards.value)
    back.set(cardId, card)
    cards.value = back
    throw err
  }
}

export async function createCard(listId: string, title: string): Promise<Card> {
  const b = board.value!
  const made = (await ok(api.POST('/v1/cards', { body: { board: b.id, list: listId, title } }))).card
  applyCard(made)
  return made
}

export async function updateCard(id: string, body: Schemas['UpdateCardBody']): Promise<Card> {
  const card = (await ok(api.PATCH('/v1/cards/{id}', { params: { path: { id } }, body }))).card
  applyCard(card)
  return card
}

export async function addList(name: string): Promise<void> {
  const b = board.value!
  const made = (await ok(api.POST('/v1/lists', { body: { board: b.id, name } }))).list
  lists.value = [...lists.value, made]
}

export const userName = (id: string): string => users.value.get(id)?.name ?? 'someone'

// Changes made elsewhere, applied to the loaded board whichever view shows it (the board, a card over it): its cards read
// again (several events of one card: once; under a filter, which decides what shows, every card once), lists and tags
// read again; past 20 cards at once, the whole board.
onEvents((events) => {
  const b = board.value
  if (!b) return
  const cardIds = new Set<string>()
  let listsChanged = false
  let all = false
  for (const e of events) {
    const data = e.data as { id?: string; board?: { id?: string }; card?: { id?: string } }
    const onBoard = data.board?.id === b.id
    if (e.event.startsWith('card.') && data.id && (onBoard || cards.value.has(data.id))) {
      if (e.event === 'card.deleted') removeCard(data.id)
      else cardIds.add(data.id)
    } else if (e.event.startsWith('checklist.') && data.card?.id && cards.value.has(data.card.id)) cardIds.add(data.card.id)
    else if (e.event.startsWith('list.') && onBoard) listsChanged = true
    else if (e.event.startsWith('tag.') && onBoard) all = true
  }
  if (all || cardIds.size > 20) return void openBoard(b.id, filter.value)
  if (listsChanged) void reloadLists().catch(toastError)
  if (cardIds.size > 0 && filter.value) void reloadCards().catch(toastError)
  else for (const id of cardIds) void refreshCard(id).catch(toastError)
})
