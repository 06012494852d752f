// The API shape of cards, batch-loaded for a page, and the enriched `data` of card events.
import type { Sql } from '../db/sql.js'
import type { CardsTable } from '../db/types.js'
import { publicBaseUrl, type Config } from '../config.js'
import { getBoards, getLists, getTags } from '../store/boards.js'
import { listCategoryOf, loadCardLinks } from '../store/cards.js'
import { getUsers } from '../store/users.js'
import { userView } from './users.js'
import { boardView, listView, tagView } from './views.js'

export const PRIORITY_NAMES = ['none', 'low', 'medium', 'high', 'urgent'] as const

export interface CardView {
  id: string; key: string; title: string; description: string; board: string; list: string; position: number
  priority: number; assignees: string[]; tags: string[]; watchers: string[]; start_date: string | null; due_date: string | null
  completed: boolean; completed_at: string | null; archived: boolean; trashed: boolean; state: string
  created: string; updated: string; created_by: string | null; existing?: boolean; expand?: Record<string, unknown>
}

export const CARD_EXPANDS = ['board', 'list', 'tags', 'assignees', 'members', 'watchers', 'priority', 'created_by'] as const

/** Cards in API shape; relations for the whole page come from a fixed number of queries (no N+1). */
/** One card in API shape, from its row, its links and its list's category. */
export function cardView(r: CardsTable, links: { assignees: string[]; tags: string[]; watchers: string[] }, state: string): CardView {
  return {
    id: r.id, key: r.key, title: r.title, description: r.description, board: r.board_id, list: r.list_id, position: r.position,
    priority: r.priority, assignees: links.assignees, tags: links.tags, watchers: links.watchers,
    start_date: r.start_date, due_date: r.due_date, completed: r.completed === 1, completed_at: r.completed_at,
    archived: r.archived === 1, trashed: r.trashed === 1, state, created: r.created_at, updated: r.updated_at, created_by: r.created_by,
  }
}

export function cardViews(sql: Sql, rows: CardsTable[], expand: ReadonlySet<string> = new Set()): CardView[] {
  const links = loadCardLinks(sql, rows.map((r) => r.id))
  const states = listCategoryOf(sql, rows.map((r) => r.list_id))
  const views = rows.map((r) => cardView(r, {
    assignees: links.assignees.get(r.id) ?? [], tags: links.tags.get(r.id) ?? [], watchers: links.watchers.get(r.id) ?? [],
  }, states.get(r.list_id) ?? 'unstarted'))
  if (expand.size > 0) addExpansions(sql, views, expand)
  return views
}

function addExpansions(sql: Sql, views: CardView[], expand: ReadonlySet<string>): void {
  const boards = expand.has('board') ? new Map(getBoards(sql, views.map((v) => v.board)).map((b) => [b.id, boardView(b)])) : undefined
  const lists = expand.has('list') ? new Map(getLists(sql, views.map((v) => v.list)).map((l) => [l.id, listView(l)])) : undefined
  const tags = expand.has('tags') ? new Map(getTags(sql, views.flatMap((v) => v.tags)).map((t) => [t.id, tagView(t)])) : undefined
  const wantUsers = expand.has('assignees') || expand.has('members') || expand.has('watchers') || expand.has('created_by')
  const userIds = wantUsers ? views.flatMap((v) => [...v.assignees, ...v.watchers, ...(v.created_by ? [v.created_by] : [])]) : []
  const users = new Map(getUsers(sql, userIds).map((u) => [u.id, userView(u)]))
  for (const v of views) {
    const e: Record<string, unknown> = {}
    if (boards) e.board = boards.get(v.board) ?? null
    if (lists) e.list = lists.get(v.list) ?? null
    if (tags) e.tags = v.tags.map((id) => tags.get(id)).filter(Boolean)
    if (expand.has('assignees')) e.assignees = v.assignees.map((id) => users.get(id)).filter(Boolean)
    if (expand.has('members')) e.members = v.assignees.map((id) => users.get(id)).filter(Boolean)
    if (expand.has('watchers')) e.watchers = v.watchers.map((id) => users.get(id)).filter(Boolean)
    if (expand.has('created_by')) e.created_by = v.created_by ? users.get(v.created_by) ?? null : null
    if (expand.has('priority')) e.priority = { value: v.priority, name: PRIORITY_NAMES[v.priority] }
    v.expand = e
  }
}

const excerpt = (text: string, max = 280): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/** The `data` of task events: raw ids plus the names and links a receiver would otherwise look up. */
/** Names the caller already holds, so enrichment need not read them again. */
export interface KnownNames { board?: { id: string; name: string }; list?: { id: string; name: string } }

export function cardEventData(sql: Sql, config: Config, card: CardView, known: KnownNames = {}): Record<string, unknown> {
  const board = known.board?.id === card.board ? known.board : getBoards(sql, [card.board])[0]
  const list = known.list?.id === card.list ? known.list : getLists(sql, [card.list])[0]
  const users = new Map(getUsers(sql, [...card.assignees, ...card.watchers, ...(card.created_by ? [card.created_by] : [])]).map((u) => [u.id, u]))
  const tags = getTags(sql, card.tags)
  const person = (id: string) => ({ id, name: users.get(id)?.name ?? null })
  return {
    id: card.id, key: card.key, title: card.title, url: `${publicBaseUrl(config)}/v1/cards/${card.id}`,
    board: { id: card.board, name: board?.name ?? null }, list: { id: card.list, name: list?.name ?? null, category: card.state },
    assignees: card.assignees.map(person), watchers: card.watchers.map(person),
    tags: card.tags.map((id) => ({ id, name: tags.find((t) => t.id === id)?.name ?? null })),
    priority: card.priority, priority_name: PRIORITY_NAMES[card.priority],
    start_date: card.start_date, due_date: card.due_date, completed: card.completed, completed_at: card.completed_at,
    archived: card.archived, trashed: card.trashed, position: card.position,
    description_excerpt: excerpt(card.description), created: card.created, updated: card.updated,
    created_by: card.created_by ? person(card.created_by) : null,
  }
}
