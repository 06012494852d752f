// Cards in API shape, batch-loaded for a page (no N+1), and the enriched `data` of card events.
import { runViews } from '../agent-runs/present.js'
import { runsOfCards } from '../agent-runs/published.js'
import { publicBaseUrl, type Config } from '../../config.js'
import { type Q, together } from '../../db/database.js'
import type { EventData } from '../../events/fields.js'
import type { CardsTable, UsersTable } from '../../db/types.js'
import { rowsByIds } from '../../db/sql.js'
import type { UserRef } from '../../http/schemas.js'
import { boardViews } from '../boards/present.js'
import type { CardStatus } from '../board-statuses/schema.js'
import { statusesOfLists } from '../board-statuses/published.js'
import { getBoards } from '../boards/published.js'
import { cardBoardsSeenBy, resourcesByCard } from '../git/present.js'
import { pipelinesByCard } from '../pipelines/present.js'
import { checklistsByCard } from '../checklists/present.js'
import { progressOfCards } from '../checklists/published.js'
import { dependenciesByCard } from '../dependencies/present.js'
import { linksByCard } from '../entity-links/present.js'
import type { Viewer } from '../../access/visibility.js'
import { listView } from '../lists/present.js'
import { getLists } from '../lists/published.js'
import { tagView } from '../tags/present.js'
import { getTags } from '../tags/published.js'
import { userRefOf, userView } from '../users/present.js'
import { getUsers } from '../users/published.js'
import { xattrOfCards } from '../xattr/values.js'
import { PRIORITY_NAMES, type CardView } from './schema.js'
import { listCategoryOf, loadCardLinks, planningOfCards } from './store.js'

export interface CardLinkIds {
  assignees: string[]
  tags: string[]
  watchers: string[]
  files: string[]
}

/** What planning adds to a card: its subtasks' progress and how many of its blockers are open. */
export interface CardPlanning {
  subtasks: { done: number; total: number }
  blocked_by_open: number
}
const NO_PLANNING: CardPlanning = { subtasks: { done: 0, total: 0 }, blocked_by_open: 0 }

/**
 * One card in API shape, from its row, its links, its list's category, its creator, its checklist items' count, its
 * planning counts, its list's status and its custom-field values.
 */
export function cardView(
  r: CardsTable,
  links: CardLinkIds,
  state: string,
  creator: UserRef | null,
  progress = { done: 0, total: 0 },
  planning: CardPlanning = NO_PLANNING,
  status: CardStatus | null = null,
  xattr: CardView['xattr'] = {},
): CardView {
  return {
    id: r.id,
    key: r.key,
    title: r.title,
    description: r.description,
    board: r.board_id,
    list: r.list_id,
    position: r.position,
    priority: r.priority,
    assignees: links.assignees,
    tags: links.tags,
    watchers: links.watchers,
    files: links.files,
    start_date: r.start_date,
    due_date: r.due_date,
    completed: r.completed === 1,
    completed_at: r.completed_at,
    archived: r.archived === 1,
    trashed: r.trashed === 1,
    state: state as CardView['state'],
    created: r.created_at,
    updated: r.updated_at,
    created_by: creator,
    status,
    milestone: r.milestone_id,
    xattr,
    checklist_progress: progress,
    parent: r.parent_id,
    subtasks: planning.subtasks,
    blocked_by_open: planning.blocked_by_open,
  }
}

const USER_EXPANDS = ['assignees', 'members', 'watchers', 'created_by']

/**
 * Cards in API shape; relations for the whole page come from a fixed number of queries. `viewer`: whose sight limits
 * what an expansion shows of other cards (`dependencies`).
 */
export async function cardViews(q: Q, rows: CardsTable[], expand: ReadonlySet<string> = new Set(), viewer?: Viewer): Promise<CardView[]> {
  const ids = rows.map((r) => r.id)
  const listIds = rows.map((r) => r.list_id)
  const creators = rows.flatMap((r) => (r.created_by ? [r.created_by] : []))
  const expandsUsers = USER_EXPANDS.some((e) => expand.has(e))
  // Reads that do not depend on one another, together (one round trip inside a PostgreSQL transaction).
  const [links, states, progress, { subtasks, blockers }, statuses, xattr, creatorRows] = await together(() =>
    Promise.all([
      loadCardLinks(q, ids),
      listCategoryOf(q, listIds),
      progressOfCards(q, ids),
      planningOfCards(q, ids),
      statusesOfLists(q, listIds),
      xattrOfCards(q, rows),
      expandsUsers ? [] : getUsers(q, creators),
    ]),
  )
  // One user query serves the creators' names and, when expanded, the assignees and watchers.
  const linked = expandsUsers ? [...links.assignees.values(), ...links.watchers.values()].flat() : []
  const users = new Map((expandsUsers ? await getUsers(q, [...creators, ...linked]) : creatorRows).map((u) => [u.id, u]))
  const views = rows.map((r) =>
    cardView(
      r,
      {
        assignees: links.assignees.get(r.id) ?? [],
        tags: links.tags.get(r.id) ?? [],
        watchers: links.watchers.get(r.id) ?? [],
        files: links.files.get(r.id) ?? [],
      },
      states.get(r.list_id) ?? 'unstarted',
      r.created_by ? userRefOf(users, r.created_by) : null,
      progress.get(r.id),
      { subtasks: subtasks.get(r.id) ?? { done: 0, total: 0 }, blocked_by_open: blockers.get(r.id) ?? 0 },
      statuses.get(r.list_id) ?? null,
      xattr.get(r.id),
    ),
  )
  if (expand.size > 0) await addExpansions(q, views, expand, users, viewer)
  return views
}

/** A map by id of the rows, each as the API shows it. */
const byId = <R extends { id: string }, V>(rows: R[], view: (r: R) => V): Map<string, V> => new Map(rows.map((r) => [r.id, view(r)]))

/** The related records `expand` asks for, for a whole page of cards: one batched load per kind. */
async function loadExpansions(q: Q, views: CardView[], expand: ReadonlySet<string>, viewer: Viewer | undefined) {
  const ids = views.map((v) => v.id)
  // The boards whose cards a resource's or pipeline's `cards` may name: read once for both expansions.
  const cardBoards = expand.has('git') || expand.has('pipelines') ? await cardBoardsSeenBy(q, viewer) : undefined
  return {
    boards: expand.has('board')
      ? byId(
          await boardViews(
            q,
            await getBoards(
              q,
              views.map((v) => v.board),
            ),
          ),
          (b) => b,
        )
      : undefined,
    lists: expand.has('list')
      ? byId(
          await getLists(
            q,
            views.map((v) => v.list),
          ),
          listView,
        )
      : undefined,
    tags: expand.has('tags')
      ? byId(
          await getTags(
            q,
            views.flatMap((v) => v.tags),
          ),
          tagView,
        )
      : undefined,
    checklists: expand.has('checklists') ? await checklistsByCard(q, ids) : undefined,
    runs: expand.has('agent_runs') ? await runViews(q, await runsOfCards(q, ids)) : undefined,
    dependencies: expand.has('dependencies') ? await dependenciesByCard(q, ids, viewer) : undefined,
    links: expand.has('links') ? await linksByCard(q, ids) : undefined,
    git: expand.has('git') ? await resourcesByCard(q, ids, cardBoards) : undefined,
    pipelines: expand.has('pipelines') ? await pipelinesByCard(q, ids, cardBoards) : undefined,
  }
}

/** One card's `expand` object, from the page's loaded records and users. */
function expansionOf(
  v: CardView,
  expand: ReadonlySet<string>,
  { boards, lists, tags, checklists, runs, dependencies, links, git, pipelines }: Awaited<ReturnType<typeof loadExpansions>>,
  users: ReadonlyMap<string, ReturnType<typeof userView>>,
): Record<string, unknown> {
  const e: Record<string, unknown> = {}
  if (boards) e.board = boards.get(v.board) ?? null
  if (lists) e.list = lists.get(v.list) ?? null
  if (tags) e.tags = v.tags.map((id) => tags.get(id)).filter(Boolean)
  if (expand.has('assignees')) e.assignees = v.assignees.map((id) => users.get(id)).filter(Boolean)
  if (expand.has('members')) e.members = v.assignees.map((id) => users.get(id)).filter(Boolean)
  if (expand.has('watchers')) e.watchers = v.watchers.map((id) => users.get(id)).filter(Boolean)
  if (expand.has('created_by')) e.created_by = v.created_by ? (users.get(v.created_by.id) ?? null) : null
  if (expand.has('priority')) e.priority = { value: v.priority, name: PRIORITY_NAMES[v.priority] }
  if (checklists) e.checklists = checklists.get(v.id) ?? []
  if (runs) e.agent_runs = runs.filter((r) => r.card === v.id)
  if (dependencies) e.dependencies = dependencies.get(v.id) ?? { blocked_by: [], blocking: [] }
  if (links) e.links = links.get(v.id) ?? []
  if (git) e.git = git.get(v.id) ?? []
  if (pipelines) e.pipelines = pipelines.get(v.id) ?? []
  return e
}

async function addExpansions(
  q: Q,
  views: CardView[],
  expand: ReadonlySet<string>,
  loaded: ReadonlyMap<string, UsersTable>,
  viewer: Viewer | undefined,
): Promise<void> {
  const related = await loadExpansions(q, views, expand, viewer)
  const users = new Map([...loaded].map(([id, u]) => [id, userView(u)]))
  for (const v of views) v.expand = expansionOf(v, expand, related, users)
}

/** `expand=card` on a page of records on a task: their cards in one query (and the card's own batched loads). */
export async function expandCard<T extends object>(
  q: Q,
  items: T[],
  expand: ReadonlySet<string>,
  cardOf: (item: T) => string = (item) => (item as { card: string }).card,
): Promise<(T & { expand?: { card: CardView } })[]> {
  if (!expand.has('card')) return items
  const cards = new Map((await cardViews(q, await rowsByIds(q, 'cards', [...new Set(items.map(cardOf))]))).map((c) => [c.id, c]))
  return items.map((i) => ({ ...i, expand: { card: cards.get(cardOf(i))! } }))
}

const excerpt = (text: string, max = 280): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/** The link to a task in event data and inbox items. */
export const cardUrl = (config: Config, id: string): string => `${publicBaseUrl(config)}/v1/cards/${id}`

/**
 * `{ card, board }` of the events of records on a task (comments, checklists, timers): they carry the
 * task's key, title and link beside the ids (`CARD_REF` and `BOARD` in events/fields.ts).
 */
export async function taskEventRefs(q: Q, config: Config, card: TaskRow) {
  return (await taskEventRefsOf(q, config, [card]))[0]
}

type TaskRow = Pick<CardsTable, 'id' | 'key' | 'title' | 'board_id'>

/** taskEventRefs for many cards, with one query for their boards. */
export async function taskEventRefsOf(q: Q, config: Config, cards: readonly TaskRow[]) {
  const boards = new Map((await getBoards(q, [...new Set(cards.map((c) => c.board_id))])).map((b) => [b.id, b.name]))
  return cards.map((card) => ({
    card: { id: card.id, key: card.key, title: card.title, url: cardUrl(config, card.id) },
    board: { id: card.board_id, name: boards.get(card.board_id) ?? null },
  }))
}

/** Names the caller already holds, so enrichment need not read them again. */
export interface KnownNames {
  board?: { id: string; name: string }
  list?: { id: string; name: string }
  /** People and tags already read (a create checked them): their names are not read again. */
  users?: readonly { id: string; name: string }[]
  tags?: readonly { id: string; name: string }[]
}

/** The `data` of task events: raw ids plus the names and links a receiver would otherwise look up. */
export async function cardEventData(q: Q, config: Config, card: EventCard, known: KnownNames = {}): Promise<EventData<'card.created'>> {
  return (await cardEventDatas(q, config, [card], known))[0]
}

/** What task events carry of a card (cardEventDatas): its view without progress, planning, status, files and custom fields. */
export type EventCard = Pick<
  CardView,
  | 'id'
  | 'key'
  | 'title'
  | 'description'
  | 'board'
  | 'list'
  | 'position'
  | 'priority'
  | 'assignees'
  | 'tags'
  | 'watchers'
  | 'start_date'
  | 'due_date'
  | 'completed'
  | 'completed_at'
  | 'archived'
  | 'trashed'
  | 'state'
  | 'created'
  | 'updated'
  | 'created_by'
  | 'parent'
>

/**
 * Cards as their events need them (cardEventDatas), from their rows: their assignees, watchers and tags, their lists'
 * categories and their creators, read together (one round trip on PostgreSQL), and none of what only a view shows
 * (progress, planning, status, files, custom fields): a cascade's chunk. `categories`: the lists' categories the
 * caller holds already (a move's target list), not read again.
 */
export async function eventCards(q: Q, rows: readonly CardsTable[], categories: ReadonlyMap<string, string> = new Map()): Promise<EventCard[]> {
  const creators = rows.flatMap((r) => (r.created_by ? [r.created_by] : []))
  const [links, states, users] = await together(() =>
    Promise.all([
      loadCardLinks(
        q,
        rows.map((r) => r.id),
        false,
      ),
      listCategoryOf(
        q,
        rows.map((r) => r.list_id).filter((id) => !categories.has(id)),
      ),
      getUsers(q, creators),
    ]),
  )
  const byId = new Map(users.map((u) => [u.id, u]))
  // The view's own mapping, with what an event does not carry left at its default.
  return rows.map((r) =>
    cardView(
      r,
      { assignees: links.assignees.get(r.id) ?? [], tags: links.tags.get(r.id) ?? [], watchers: links.watchers.get(r.id) ?? [], files: [] },
      categories.get(r.list_id) ?? states.get(r.list_id) ?? 'unstarted',
      r.created_by ? userRefOf(byId, r.created_by) : null,
    ),
  )
}

/** cardEventData for many cards, with one query each for their boards, lists, people and tags (a cascade's chunk). */
export async function cardEventDatas(q: Q, config: Config, cards: readonly EventCard[], known: KnownNames = {}): Promise<EventData<'card.created'>[]> {
  const unknown = <T>(ids: string[], knownOne: { id: string } | undefined) => [...new Set(ids)].filter((id) => id !== knownOne?.id) as T[]
  const users = new Map((known.users ?? []).map((u) => [u.id, u.name]))
  const tags = new Map((known.tags ?? []).map((t) => [t.id, t.name]))
  // Independent reads, together (one round trip on PostgreSQL).
  const [boardRows, listRows, userRows, tagRows] = await together(() =>
    Promise.all([
      getBoards(
        q,
        unknown(
          cards.map((c) => c.board),
          known.board,
        ),
      ),
      getLists(
        q,
        unknown(
          cards.map((c) => c.list),
          known.list,
        ),
      ),
      getUsers(
        q,
        [...new Set(cards.flatMap((c) => [...c.assignees, ...c.watchers]))].filter((id) => !users.has(id)),
      ),
      getTags(
        q,
        [...new Set(cards.flatMap((c) => c.tags))].filter((id) => !tags.has(id)),
      ),
    ]),
  )
  const boards = new Map(boardRows.map((b) => [b.id, b.name]))
  const lists = new Map(listRows.map((l) => [l.id, l.name]))
  for (const u of userRows) users.set(u.id, u.name)
  for (const t of tagRows) tags.set(t.id, t.name)
  if (known.board) boards.set(known.board.id, known.board.name)
  if (known.list) lists.set(known.list.id, known.list.name)
  const person = (id: string) => ({ id, name: users.get(id) ?? null })
  return cards.map((card) => ({
    id: card.id,
    key: card.key,
    title: card.title,
    url: cardUrl(config, card.id),
    board: { id: card.board, name: boards.get(card.board) ?? null },
    list: { id: card.list, name: lists.get(card.list) ?? null, category: card.state },
    assignees: card.assignees.map(person),
    watchers: card.watchers.map(person),
    tags: card.tags.map((id) => ({ id, name: tags.get(id) ?? null })),
    priority: card.priority,
    priority_name: PRIORITY_NAMES[card.priority],
    start_date: card.start_date,
    due_date: card.due_date,
    completed: card.completed,
    completed_at: card.completed_at,
    archived: card.archived,
    trashed: card.trashed,
    position: card.position,
    description_excerpt: excerpt(card.description),
    created: card.created,
    updated: card.updated,
    created_by: card.created_by,
    parent: card.parent,
  }))
}
