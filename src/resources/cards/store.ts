// Card queries: rows, their many-valued relations, keys, and the base query of the card list.
import { memberBoardIds } from '../../access/visibility.js'
import type { Sql } from '../../db/sql.js'
import { fixedQuery, qb } from '../../db/sql.js'
import type { CardsTable, ListsTable } from '../../db/types.js'

const cardById = fixedQuery((id: string) => qb.selectFrom('cards').selectAll().where('id', '=', id))
export const getCard = (sql: Sql, id: string) => sql.first(cardById(id))
export const insertCard = (sql: Sql, row: CardsTable) => sql.run(qb.insertInto('cards').values(row))
export const updateCardRow = (sql: Sql, id: string, set: Partial<CardsTable>) => sql.run(qb.updateTable('cards').set(set).where('id', '=', id))
export const deleteCardRow = (sql: Sql, id: string) => sql.run(qb.deleteFrom('cards').where('id', '=', id))

const byIdempotencyKey = fixedQuery((boardId: string, key: string) =>
  qb.selectFrom('cards').selectAll().where('board_id', '=', boardId).where('idempotency_key', '=', key),
)
export const findByIdempotencyKey = (sql: Sql, boardId: string, key: string) => sql.first(byIdempotencyKey(boardId, key))

const maxPosition = fixedQuery((listId: string) =>
  qb
    .selectFrom('cards')
    .select((eb) => eb.fn.max('position').as('p'))
    .where('list_id', '=', listId),
)
export const maxCardPosition = (sql: Sql, listId: string): number => sql.first(maxPosition(listId))?.p ?? 0

export const countCardsInList = (sql: Sql, listId: string): number =>
  sql.first(
    qb
      .selectFrom('cards')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('list_id', '=', listId),
  )!.n

export const cardsOfList = (sql: Sql, listId: string): CardsTable[] =>
  sql.all(qb.selectFrom('cards').selectAll().where('list_id', '=', listId).orderBy('position'))
export const cardsOfBoard = (sql: Sql, boardId: string): CardsTable[] => sql.all(qb.selectFrom('cards').selectAll().where('board_id', '=', boardId))

/** Takes the next card number of a board; numbers are never handed out twice. */
const nextKey = fixedQuery((boardId: string) =>
  qb
    .updateTable('boards')
    .set((eb) => ({ next_key: eb('next_key', '+', 1) }))
    .where('id', '=', boardId)
    .returning('next_key'),
)
export const takeCardNumber = (sql: Sql, boardId: string): number => sql.first(nextKey(boardId))!.next_key - 1

/** Keys follow their board's prefix; their numbers never change. */
export const rekeyBoardCards = (sql: Sql, boardId: string, prefix: string) =>
  sql.run(
    qb
      .updateTable('cards')
      .set((eb) => ({ key: eb.fn('concat', [eb.val(`${prefix}-`), eb.ref('key_num')]) }))
      .where('board_id', '=', boardId),
  )

type Link = 'card_assignees' | 'card_watchers'

export function addUserLinks(sql: Sql, table: Link, cardId: string, userIds: readonly string[]): void {
  if (userIds.length) sql.run(qb.insertInto(table).values(userIds.map((user_id) => ({ card_id: cardId, user_id }))))
}

export function setUserLinks(sql: Sql, table: Link, cardId: string, userIds: readonly string[]): void {
  sql.run(qb.deleteFrom(table).where('card_id', '=', cardId))
  addUserLinks(sql, table, cardId, userIds)
}

export function addTagLinks(sql: Sql, cardId: string, tagIds: readonly string[]): void {
  if (tagIds.length) sql.run(qb.insertInto('card_tags').values(tagIds.map((tag_id) => ({ card_id: cardId, tag_id }))))
}

export function setTagLinks(sql: Sql, cardId: string, tagIds: readonly string[]): void {
  sql.run(qb.deleteFrom('card_tags').where('card_id', '=', cardId))
  addTagLinks(sql, cardId, tagIds)
}

export interface CardLinks {
  assignees: Map<string, string[]>
  watchers: Map<string, string[]>
  tags: Map<string, string[]>
}

/** The many-valued relations of a page of cards, in three queries whatever the page size. */
export function loadCardLinks(sql: Sql, cardIds: readonly string[]): CardLinks {
  const links: CardLinks = { assignees: new Map(), watchers: new Map(), tags: new Map() }
  if (cardIds.length === 0) return links
  const group = (map: Map<string, string[]>, rows: { card_id: string; v: string }[]) => {
    for (const r of rows) (map.get(r.card_id) ?? map.set(r.card_id, []).get(r.card_id)!).push(r.v)
  }
  group(links.assignees, sql.all(qb.selectFrom('card_assignees').select(['card_id', 'user_id as v']).where('card_id', 'in', cardIds).orderBy('user_id')))
  group(links.watchers, sql.all(qb.selectFrom('card_watchers').select(['card_id', 'user_id as v']).where('card_id', 'in', cardIds).orderBy('user_id')))
  group(links.tags, sql.all(qb.selectFrom('card_tags').select(['card_id', 'tag_id as v']).where('card_id', 'in', cardIds).orderBy('tag_id')))
  return links
}

export const listCategoryOf = (sql: Sql, listIds: readonly string[]): Map<string, string> =>
  new Map(
    listIds.length === 0
      ? []
      : sql
          .all(
            qb
              .selectFrom('lists')
              .select(['id', 'category'])
              .where('id', 'in', [...new Set(listIds)]),
          )
          .map((r) => [r.id, r.category]),
  )

/** The card list's own query parameters (filter, sort and paging come on top). */
export interface CardListParams {
  board?: string
  list?: string
  completed?: boolean
  archived?: boolean
  trashed?: boolean
  state?: ListsTable['category'][]
  assignee?: string
  team?: string
}

/** The visible cards matching the list parameters, before `filter`, sort and paging. */

export function cardListQuery(me: string, query: CardListParams) {
  let base = qb
    .selectFrom('cards')
    .where('cards.board_id', 'in', memberBoardIds(me))
    .where('cards.trashed', '=', query.trashed ? 1 : 0)
  if (query.board) base = base.where('cards.board_id', '=', query.board)
  if (query.list) base = base.where('cards.list_id', '=', query.list)
  if (query.completed !== undefined) base = base.where('cards.completed', '=', query.completed ? 1 : 0)
  if (query.archived !== undefined) base = base.where('cards.archived', '=', query.archived ? 1 : 0)
  if (query.state?.length) base = base.where('cards.list_id', 'in', qb.selectFrom('lists').select('lists.id').where('lists.category', 'in', query.state))
  // IN (subquery) rather than a correlated EXISTS lets SQLite start from the link table's index.
  const assignedTo = (user: string) => qb.selectFrom('card_assignees').select('card_assignees.card_id').where('card_assignees.user_id', '=', user)
  if (query.assignee === 'me') base = base.where('cards.id', 'in', assignedTo(me))
  else if (query.assignee === 'mine') base = base.where((eb) => eb.or([eb('cards.id', 'in', assignedTo(me)), eb('cards.created_by', '=', me)]))
  else if (query.assignee === 'watching')
    base = base.where('cards.id', 'in', qb.selectFrom('card_watchers').select('card_watchers.card_id').where('card_watchers.user_id', '=', me))
  else if (query.assignee === 'none') base = base.where('cards.id', 'not in', qb.selectFrom('card_assignees').select('card_assignees.card_id'))
  else if (query.assignee) base = base.where('cards.id', 'in', assignedTo(query.assignee))
  if (query.team) {
    base = base.where(
      'cards.id',
      'in',
      qb
        .selectFrom('card_assignees')
        .innerJoin('team_members', 'team_members.user_id', 'card_assignees.user_id')
        .select('card_assignees.card_id')
        .where('team_members.team_id', '=', query.team),
    )
  }
  return base
}
