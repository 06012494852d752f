// Card queries: rows, their many-valued relations, keys, and the base query of the card list.
import { sql, type ExpressionBuilder } from 'kysely'
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import { ahead, later, type Q, together } from '../../db/database.js'
import { forUpdate, unindexedIn } from '../../db/dialect.js'
import { type Late, LateNumber, lateSlot } from '../../db/late.js'
import { firstOf, fixedQuery, rowInsert } from '../../db/sql.js'
import type { CardsTable, DB } from '../../db/types.js'
import type { CardListParams } from './schema.js'

const cardById = fixedQuery((q: Q, id: string) => q.selectFrom('cards').selectAll().where('id', '=', id))
export const getCard = (q: Q, id: string) => firstOf(q, cardById(q, id))
const cardForUpdate = fixedQuery((q: Q, id: string) => forUpdate(q, q.selectFrom('cards').selectAll().where('id', '=', id)))
/** A card about to change, locked until the transaction ends (see forUpdate). */
export const lockCard = (q: Q, id: string) => firstOf(q, cardForUpdate(q, id))
/** Cards about to change (those of `ids` that exist), locked as lockCard locks one. */
export const lockCards = (q: Q, ids: readonly string[]) =>
  forUpdate(
    q,
    q
      .selectFrom('cards')
      .selectAll()
      .where('id', 'in', [...ids]),
  ).execute()
export const insertCard = rowInsert('cards')
export const updateCardRow = (q: Q, id: string, set: Partial<CardsTable>) => q.updateTable('cards').set(set).where('id', '=', id).execute()
/** Moves cards to a list at the positions given, in one statement. */
export async function moveCardRows(q: Q, moves: readonly { id: string; position: number }[], listId: string, at: string): Promise<void> {
  // The positions are parameters typed by a cast (a VALUES list gives PostgreSQL no column to type them from): the
  // statement's text depends on the number of cards alone, so SQLite prepares it once for every chunk of a cascade.
  // Both dialects name the columns of a VALUES list column1, column2, ...
  const values = sql.join(moves.map((m) => sql`(${m.id}, CAST(${m.position} AS DOUBLE PRECISION))`))
  // Nothing reads the rows back: the UPDATE goes now, and the caller makes the events while the server writes it.
  await ahead(
    q,
    sql`UPDATE cards SET list_id = ${listId}, updated_at = ${at}, position = v.column2
    FROM (VALUES ${values}) AS v WHERE cards.id = v.column1`,
  )
}
/** The same columns set on many cards, in one statement. */
export const setCardColumns = (q: Q, ids: readonly string[], set: Partial<CardsTable>) =>
  q
    .updateTable('cards')
    .set(set)
    .where('id', 'in', [...ids])
    .execute()
export const deleteCardRows = (q: Q, ids: readonly string[]) =>
  q
    .deleteFrom('cards')
    .where('id', 'in', [...ids])
    .execute()

const byIdempotencyKey = fixedQuery((q: Q, boardId: string, key: string) =>
  q.selectFrom('cards').selectAll().where('board_id', '=', boardId).where('idempotency_key', '=', key),
)
export const findByIdempotencyKey = (q: Q, boardId: string, key: string) => firstOf(q, byIdempotencyKey(q, boardId, key))

export const countCardsInList = async (q: Q, listId: string): Promise<number> =>
  Number(
    (
      await q
        .selectFrom('cards')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('list_id', '=', listId)
        .executeTakeFirstOrThrow()
    ).n,
  )

/** Up to `limit` cards of a list, in order: a list deletion moves them a chunk at a time. */
export const cardsOfList = (q: Q, listId: string, limit: number): Promise<CardsTable[]> =>
  q.selectFrom('cards').selectAll().where('list_id', '=', listId).orderBy('position').orderBy('id').limit(limit).execute()
/** Up to `limit` cards of a list whose completion is not `completed` yet: a list's category change settles them a chunk at a time. */
export const cardsOfListToSettle = (q: Q, listId: string, completed: boolean, limit: number): Promise<CardsTable[]> =>
  q
    .selectFrom('cards')
    .selectAll()
    .where('list_id', '=', listId)
    .where('completed', '!=', completed ? 1 : 0)
    .orderBy('position')
    .orderBy('id')
    .limit(limit)
    .execute()
/** Up to `limit` cards (not in the trash) of a list with ids after `after`, in id order: a list's new status is announced a chunk at a time. */
export const cardsOfListAfter = (q: Q, listId: string, after: string, limit: number): Promise<CardsTable[]> =>
  q.selectFrom('cards').selectAll().where('list_id', '=', listId).where('trashed', '=', 0).where('id', '>', after).orderBy('id').limit(limit).execute()
/** The cards of these ids that exist, in id order. */
export const cardsByIds = (q: Q, ids: readonly string[]): Promise<CardsTable[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('cards')
        .selectAll()
        .where('id', 'in', [...ids])
        .orderBy('id')
        .execute()
/** The ids of the cards (not in the trash) of these lists, in id order: a renamed status announces them. */
export const cardIdsOfLists = async (q: Q, listIds: readonly string[]): Promise<string[]> =>
  listIds.length === 0
    ? []
    : (
        await q
          .selectFrom('cards')
          .select('id')
          .where('list_id', 'in', [...listIds])
          .where('trashed', '=', 0)
          .orderBy('id')
          .execute()
      ).map((r) => r.id)
/** Up to `limit` cards (not in the trash) of a milestone: a milestone deletion takes them off it a chunk at a time. */
export const cardsOfMilestone = (q: Q, milestoneId: string, limit: number): Promise<CardsTable[]> =>
  q.selectFrom('cards').selectAll().where('milestone_id', '=', milestoneId).where('trashed', '=', 0).orderBy('id').limit(limit).execute()
/** Up to `limit` cards of a board: a board deletion removes them a chunk at a time. */
export const cardsOfBoard = (q: Q, boardId: string, limit: number): Promise<CardsTable[]> =>
  q.selectFrom('cards').selectAll().where('board_id', '=', boardId).orderBy('id').limit(limit).execute()

/** Takes the next card number of a board; numbers are never handed out twice. */
const nextKey = fixedQuery((q: Q, boardId: string) =>
  q
    .updateTable('boards')
    .set((eb) => ({ next_key: eb('next_key', '+', 1) }))
    .where('id', '=', boardId)
    .returning(['next_key', 'key_prefix']),
)
const KEY_NUM = lateSlot('taskd.late_key_num', 'bigint')
const KEY = lateSlot('taskd.late_key', 'text')
/** nextKey taken late (src/db/late.ts, PostgreSQL): the number and the key kept in settings of the transaction. */
const lateKey = (q: Q, boardId: string) =>
  sql`WITH k AS (UPDATE boards SET next_key = next_key + 1 WHERE id = ${boardId} RETURNING next_key - 1 AS num, key_prefix)
    SELECT set_config(${KEY_NUM.setting}, num::text, true) AS num, set_config(${KEY.setting}, key_prefix || '-' || num, true) AS key FROM k`.compile(q)
/**
 * The next card key of a board, taken under the board row's lock (late, with `late`: stand-ins until the commit), with the board's prefix as it is now (a rename may
 * have committed since the board was read); undefined when the board is gone.
 */
export const takeCardKey = async (q: Q, boardId: string, late?: Late): Promise<{ num: number; key: string } | undefined> => {
  if (late && (await late.take(q, lateKey(q, boardId), { num: KEY_NUM, key: KEY })))
    return { num: new LateNumber(KEY_NUM) as unknown as number, key: KEY.token }
  const row = await firstOf(q, nextKey(q, boardId))
  return row && { num: row.next_key - 1, key: `${row.key_prefix}-${row.next_key - 1}` }
}

/** `<prefix>-<key_num>` in SQL; the cast tells PostgreSQL what the parameter is (concat takes any type). */
const keyOf = (eb: ExpressionBuilder<DB, 'cards'>, prefix: string) => eb.fn<string>('concat', [eb.cast(eb.val(`${prefix}-`), 'text'), eb.ref('key_num')])

/** Up to `limit` cards of a board whose key does not carry the board's prefix yet (a prefix change in progress). */
export const cardsToRekey = (q: Q, boardId: string, prefix: string, limit: number): Promise<CardsTable[]> =>
  q
    .selectFrom('cards')
    .selectAll()
    .where('board_id', '=', boardId)
    .where((eb) => eb('key', '!=', keyOf(eb, prefix)))
    .orderBy('id')
    .limit(limit)
    .execute()

/** Keys follow their board's prefix; their numbers never change. */
export const rekeyCards = (q: Q, ids: readonly string[], prefix: string) =>
  ids.length === 0
    ? Promise.resolve([])
    : q
        .updateTable('cards')
        .set((eb) => ({ key: keyOf(eb, prefix) }))
        .where('id', 'in', [...ids])
        .execute()

type Link = 'card_assignees' | 'card_watchers'

/** With `'later'`, the insert travels with the transaction's next statement (`later`). */
export async function addUserLinks(q: Q, table: Link, cardId: string, userIds: readonly string[], held?: 'later'): Promise<void> {
  if (userIds.length) {
    const insert = q.insertInto(table).values(userIds.map((user_id) => ({ card_id: cardId, user_id })))
    await (held ? later(q, insert) : insert.execute())
  }
}

export async function setUserLinks(q: Q, table: Link, cardId: string, userIds: readonly string[]): Promise<void> {
  await q.deleteFrom(table).where('card_id', '=', cardId).execute()
  await addUserLinks(q, table, cardId, userIds)
}

export async function addTagLinks(q: Q, cardId: string, tagIds: readonly string[], held?: 'later'): Promise<void> {
  if (tagIds.length) {
    const insert = q.insertInto('card_tags').values(tagIds.map((tag_id) => ({ card_id: cardId, tag_id })))
    await (held ? later(q, insert) : insert.execute())
  }
}

/**
 * Adds `add` and removes `remove` (user or tag ids) on each of the cards, in one DELETE and one INSERT: `adding` are
 * the pairs not there yet.
 */
export async function changeLinks(q: Q, table: Link | 'card_tags', cardIds: readonly string[], remove: readonly string[], adding: readonly [string, string][]) {
  const column = table === 'card_tags' ? 'tag_id' : 'user_id'
  if (cardIds.length && remove.length)
    await q
      .deleteFrom(table)
      .where('card_id', 'in', [...cardIds])
      .where(column, 'in', [...remove])
      .execute()
  if (adding.length)
    await q
      .insertInto(table)
      .values(adding.map(([card_id, v]) => ({ card_id, [column]: v }) as never))
      .execute()
}

export async function setTagLinks(q: Q, cardId: string, tagIds: readonly string[]): Promise<void> {
  await q.deleteFrom('card_tags').where('card_id', '=', cardId).execute()
  await addTagLinks(q, cardId, tagIds)
}

/** The watchers of one card. */
export const watchersOf = async (q: Q, cardId: string): Promise<string[]> =>
  (await q.selectFrom('card_watchers').select('user_id').where('card_id', '=', cardId).execute()).map((r) => r.user_id)
export interface CardLinks {
  assignees: Map<string, string[]>
  watchers: Map<string, string[]>
  tags: Map<string, string[]>
  files: Map<string, string[]>
}

/** The many-valued relations of a page of cards, in three queries whatever the page size. */
export async function loadCardLinks(q: Q, cardIds: readonly string[], withFiles = true): Promise<CardLinks> {
  const links: CardLinks = { assignees: new Map(), watchers: new Map(), tags: new Map(), files: new Map() }
  if (cardIds.length === 0) return links
  const ids = [...cardIds]
  const group = (map: Map<string, string[]>, rows: { card_id: string; v: string }[]) => {
    for (const r of rows) (map.get(r.card_id) ?? map.set(r.card_id, []).get(r.card_id)!).push(r.v)
  }
  // Four reads together (one round trip on PostgreSQL); three without the files (what events carry).
  const [assignees, watchers, tags, files] = await together(() =>
    Promise.all([
      q.selectFrom('card_assignees').select(['card_id', 'user_id as v']).where('card_id', 'in', ids).orderBy('user_id').execute(),
      q.selectFrom('card_watchers').select(['card_id', 'user_id as v']).where('card_id', 'in', ids).orderBy('user_id').execute(),
      q.selectFrom('card_tags').select(['card_id', 'tag_id as v']).where('card_id', 'in', ids).orderBy('tag_id').execute(),
      // Attachments (the files family's rows), complete ones only, oldest first.
      withFiles
        ? (q
            .selectFrom('files')
            .select(['card_id', 'id as v'])
            .where('card_id', 'in', ids)
            .where('complete', '=', 1)
            .orderBy('created_at')
            .orderBy('id')
            .execute() as Promise<{ card_id: string; v: string }[]>)
        : [],
    ]),
  )
  group(links.assignees, assignees)
  group(links.watchers, watchers)
  group(links.tags, tags)
  group(links.files, files)
  return links
}

/**
 * What planning adds to a page of cards, in one statement: each card's subtasks (the cards whose parent it is, not in
 * the trash: how many, how many completed) and how many of its blockers (dependencies) are open, neither completed nor
 * in the trash. Cards with neither are absent.
 */
export async function planningOfCards(q: Q, cardIds: readonly string[]) {
  const subtasks = new Map<string, { done: number; total: number }>()
  const blockers = new Map<string, number>()
  if (cardIds.length === 0) return { subtasks, blockers }
  const ids = sql.join([...cardIds])
  const { rows } = await sql<{ what: string; id: string; n: number | string; done: number | string | null }>`
    SELECT 's' AS what, parent_id AS id, count(*) AS n, sum(completed) AS done FROM cards
     WHERE parent_id IN (${ids}) AND trashed = 0 GROUP BY parent_id
    UNION ALL
    SELECT 'b', d.blocked_id, count(*), 0 FROM card_dependencies d JOIN cards b ON b.id = d.blocker_id
     WHERE d.blocked_id IN (${ids}) AND b.completed = 0 AND b.trashed = 0 GROUP BY d.blocked_id`.execute(q)
  for (const r of rows) {
    if (r.what === 's') subtasks.set(r.id, { done: Number(r.done ?? 0), total: Number(r.n) })
    else blockers.set(r.id, Number(r.n))
  }
  return { subtasks, blockers }
}

export const listCategoryOf = async (q: Q, listIds: readonly string[]): Promise<Map<string, string>> =>
  new Map(
    listIds.length === 0
      ? []
      : (
          await q
            .selectFrom('lists')
            .select(['id', 'category'])
            .where('id', 'in', [...new Set(listIds)])
            .execute()
        ).map((r) => [r.id, r.category]),
  )

/** A list not narrowed by anything but the board: one that may be read in order across the visible boards (see cardListQueries). */
export const unnarrowed = (query: CardListParams): boolean =>
  !query.trashed &&
  !query.list &&
  !query.state?.length &&
  !query.assignee &&
  !query.team &&
  query.completed === undefined &&
  query.archived === undefined &&
  !query.filter

/**
 * The visible cards matching the list parameters, before `filter`, sort and paging, for the page (`base`) and, when
 * it differs, for its count (`countBase`). `seesMost`: the viewer sees most of the workspace's boards (seesMostBoards;
 * always so for owners and admins). The cards of most of the workspace, not narrowed: the page's board test is made on
 * each row, so that the page is read from an index in its order (cards_position, cards_created, ...) and stops at its
 * end, instead of sorting nearly every card. The count looks the boards up: counting their index ranges is quicker
 * (3 ms for 100,000 cards) than testing the board of each card (12 ms). Narrowed, SQLite looks the boards up for the
 * page too and reads their indexes (by list, by state, by a filter's field), and a member's fewer boards always.
 */
export function cardListQueries(q: Q, viewer: Viewer, query: CardListParams, seesMost: boolean) {
  const inOrder = seesMost && unnarrowed(query)
  return { base: cardListQuery(q, viewer, query, inOrder), countBase: inOrder ? cardListQuery(q, viewer, query, false) : undefined }
}

function cardListQuery(q: Q, viewer: Viewer, query: CardListParams, inOrder: boolean) {
  const me = viewer.id
  const visible = visibleBoardIds(q, viewer)
  let base = q
    .selectFrom('cards')
    .where((eb) => (inOrder ? unindexedIn(q, 'cards.board_id', visible) : eb('cards.board_id', 'in', visible)))
    .where('cards.trashed', '=', query.trashed ? 1 : 0)
  if (query.board) base = base.where('cards.board_id', '=', query.board)
  if (query.list) base = base.where('cards.list_id', '=', query.list)
  if (query.completed !== undefined) base = base.where('cards.completed', '=', query.completed ? 1 : 0)
  if (query.archived !== undefined) base = base.where('cards.archived', '=', query.archived ? 1 : 0)
  if (query.state?.length) base = base.where('cards.list_id', 'in', q.selectFrom('lists').select('lists.id').where('lists.category', 'in', query.state))
  // IN (subquery) rather than a correlated EXISTS lets SQLite start from the link table's index.
  const assignedTo = (user: string) => q.selectFrom('card_assignees').select('card_assignees.card_id').where('card_assignees.user_id', '=', user)
  if (query.assignee === 'me') base = base.where('cards.id', 'in', assignedTo(me))
  else if (query.assignee === 'mine') base = base.where((eb) => eb.or([eb('cards.id', 'in', assignedTo(me)), eb('cards.created_by', '=', me)]))
  else if (query.assignee === 'watching')
    base = base.where('cards.id', 'in', q.selectFrom('card_watchers').select('card_watchers.card_id').where('card_watchers.user_id', '=', me))
  else if (query.assignee === 'none') base = base.where('cards.id', 'not in', q.selectFrom('card_assignees').select('card_assignees.card_id'))
  else if (query.assignee) base = base.where('cards.id', 'in', assignedTo(query.assignee))
  if (query.team) {
    base = base.where(
      'cards.id',
      'in',
      q
        .selectFrom('card_assignees')
        .innerJoin('user_group_members', 'user_group_members.user_id', 'card_assignees.user_id')
        .select('card_assignees.card_id')
        .where('user_group_members.group_id', '=', query.team),
    )
  }
  return base
}
