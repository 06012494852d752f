// Card queries: rows, their many-valued relations, and keys.
import type { Sql } from '../db/sql.js'
import { fixedQuery, qb } from '../db/sql.js'
import type { CardsTable } from '../db/types.js'

const cardById = fixedQuery((id: string) => qb.selectFrom('cards').selectAll().where('id', '=', id))
export const getCard = (sql: Sql, id: string) => sql.first(cardById(id))
export const insertCard = (sql: Sql, row: CardsTable) => sql.run(qb.insertInto('cards').values(row))
export const updateCardRow = (sql: Sql, id: string, set: Partial<CardsTable>) => sql.run(qb.updateTable('cards').set(set).where('id', '=', id))
export const deleteCardRow = (sql: Sql, id: string) => sql.run(qb.deleteFrom('cards').where('id', '=', id))

const byIdempotencyKey = fixedQuery((boardId: string, key: string) => qb.selectFrom('cards').selectAll().where('board_id', '=', boardId).where('idempotency_key', '=', key))
export const findByIdempotencyKey = (sql: Sql, boardId: string, key: string) => sql.first(byIdempotencyKey(boardId, key))

const maxPosition = fixedQuery((listId: string) => qb.selectFrom('cards').select((eb) => eb.fn.max('position').as('p')).where('list_id', '=', listId))
export const maxCardPosition = (sql: Sql, listId: string): number => sql.first(maxPosition(listId))?.p ?? 0

export const countCardsInList = (sql: Sql, listId: string): number =>
  sql.first(qb.selectFrom('cards').select((eb) => eb.fn.countAll<number>().as('n')).where('list_id', '=', listId))!.n


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

export interface CardLinks { assignees: Map<string, string[]>; watchers: Map<string, string[]>; tags: Map<string, string[]> }

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
  new Map(listIds.length === 0 ? [] : sql.all(qb.selectFrom('lists').select(['id', 'category']).where('id', 'in', [...new Set(listIds)])).map((r) => [r.id, r.category]))
