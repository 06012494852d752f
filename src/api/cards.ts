// /v1/cards: the heart. List with query parameters and filter, create (idempotent), update, trash, move, complete.
import { z } from 'zod'
import type { CardsTable } from '../db/types.js'
import { CARD_EXPANDS, cardViews } from '../domain/card-view.js'
import { createCard, getCardFor, moveCard, trashCard, updateCard } from '../domain/cards.js'
import { expandQuery, pageQuery, pageSchema, parseExpand, parseSort, runPage } from '../http/paging.js'
import type { Api } from '../http/route.js'
import { cardListQuery } from '../store/cards.js'
import { dateOrDateTime, idParam, ListCategory, queryBool } from './schemas.js'

const ids = z.array(z.string().min(1)).max(100)
const CardSchema = z.object({
  id: z.string(), key: z.string(), title: z.string(), description: z.string(), board: z.string(), list: z.string(), position: z.number(),
  priority: z.number().int().meta({ description: '0 none, 1 low, 2 medium, 3 high, 4 urgent' }),
  assignees: z.array(z.string()), tags: z.array(z.string()), watchers: z.array(z.string()),
  start_date: z.string().nullable(), due_date: z.string().nullable(), completed: z.boolean(), completed_at: z.string().nullable(),
  archived: z.boolean(), trashed: z.boolean(), state: ListCategory.meta({ description: 'The category of the card\'s list.' }),
  created: z.string(), updated: z.string(), created_by: z.string().nullable(),
  existing: z.boolean().optional().meta({ description: 'true when an idempotent replay returned an existing card' }),
  expand: z.record(z.string(), z.unknown()).optional(),
}).meta({ id: 'Card' })
const CardEnvelope = z.object({ card: CardSchema })

const editable = {
  description: z.string().max(100_000).optional(),
  list: z.string().min(1).optional(),
  position: z.number().finite().optional(),
  priority: z.number().int().min(0).max(4).optional(),
  assignees: ids.optional(), tags: ids.optional(), watchers: ids.optional(),
  start_date: dateOrDateTime.nullable().optional(), due_date: dateOrDateTime.nullable().optional(),
  completed: z.boolean().optional(), archived: z.boolean().optional(),
}
const title = z.string().trim().min(1).max(500)

export const CARD_SORT = {
  position: 'cards.position', created: 'cards.created_at', updated: 'cards.updated_at', title: 'cards.title', priority: 'cards.priority',
  due_date: 'cards.due_date', start_date: 'cards.start_date', completed_at: 'cards.completed_at', key: 'cards.key_num',
}

const listQuery = z.object({
  ...pageQuery, ...expandQuery(CARD_EXPANDS),
  board: z.string().optional().meta({ description: 'Board id.' }),
  list: z.string().optional().meta({ description: 'List id.' }),
  completed: queryBool.optional(), archived: queryBool.optional(),
  trashed: queryBool.default(false).meta({ description: 'Trashed cards are hidden unless `trashed=true`.' }),
  state: z.string().optional()
    .refine((v) => v === undefined || v.split(',').every((x) => ListCategory.safeParse(x.trim()).success), 'Use backlog, unstarted, started, completed or canceled, separated by commas.')
    .transform((v) => v?.split(',').map((x) => ListCategory.parse(x.trim())))
    .meta({ description: 'Comma-separated list categories: backlog, unstarted, started, completed, canceled.' }),
  assignee: z.string().optional().meta({ description: '`me` (assigned to you), `mine` (assigned to or created by you), `watching`, `none` (unassigned), or a user id.' }),
  team: z.string().optional().meta({ description: 'Team id: cards assigned to a member of the team.' }),
})

export function cardRoutes(api: Api): void {
  api.add({
    method: 'get', path: '/v1/cards', tag: 'Cards', access: 'read', summary: 'List cards of the visible boards',
    description: 'Query parameters and `filter` combine with AND. Default order: position, then created.',
    query: listQuery,
    responses: { 200: { description: 'A page of cards', schema: pageSchema(CardSchema, 'CardPage') } },
    handler: ({ deps, actor, query }) => {
      const base = cardListQuery(actor.user.id, query)
      const expand = parseExpand(query.expand, CARD_EXPANDS)
      const order = parseSort(query.sort ?? 'position,created', CARD_SORT)
      return { status: 200, body: runPage(deps.sql, base, 'cards', { page: query.page, perPage: query.per_page, order }, (rows: CardsTable[]) => cardViews(deps.sql, rows, expand)) }
    },
  })
  api.add({
    method: 'post', path: '/v1/cards', tag: 'Cards', access: 'write', summary: 'Create a card',
    description: 'With an `idempotency_key` already used by a card of the same board (not trashed), that card is returned with `existing: true` and status 200; nothing is created. `list` defaults to the board\'s first list.',
    body: z.object({ title, board: z.string().min(1), idempotency_key: z.string().min(1).max(200).optional(), ...editable }).strict(),
    responses: {
      201: { description: 'The new card', schema: CardEnvelope },
      200: { description: 'An idempotent replay: the existing card, with existing: true', schema: CardEnvelope },
    },
    handler: ({ deps, actor, body }) => {
      const { card, existing } = createCard(deps, actor, body)
      return { status: existing ? 200 : 201, body: { card } }
    },
  })
  api.add({
    method: 'get', path: '/v1/cards/{id}', tag: 'Cards', access: 'read', summary: 'Get a card by its record id (not its key)',
    params: idParam, query: z.object({ ...expandQuery(CARD_EXPANDS) }),
    responses: { 200: { description: 'The card', schema: CardEnvelope } },
    handler: ({ deps, actor, params, query }) => ({ status: 200, body: { card: getCardFor(deps, actor, params.id, parseExpand(query.expand, CARD_EXPANDS)) } }),
  })
  api.add({
    method: 'patch', path: '/v1/cards/{id}', tag: 'Cards', access: 'write', summary: 'Update a card; `assignees`, `tags` and `watchers` replace the whole set',
    params: idParam, body: z.object({ title: title.optional(), ...editable, trashed: z.boolean().optional() }).strict(),
    responses: { 200: { description: 'The card', schema: CardEnvelope } },
    handler: ({ deps, actor, params, body }) => ({ status: 200, body: { card: updateCard(deps, actor, params.id, body) } }),
  })
  api.add({
    method: 'delete', path: '/v1/cards/{id}', tag: 'Cards', access: 'write',
    summary: 'Move a card to the trash (frees its idempotency key), or delete it with permanent=true',
    params: idParam, query: z.object({ permanent: queryBool.default(false) }),
    responses: { 204: { description: 'Trashed or deleted' } },
    handler: ({ deps, actor, params, query }) => { trashCard(deps, actor, params.id, query.permanent); return { status: 204 } },
  })
  api.add({
    method: 'post', path: '/v1/cards/{id}/move', tag: 'Cards', access: 'write',
    summary: 'Move a card to a list, optionally on another board (it then gets a key of that board)',
    params: idParam, body: z.object({ list: z.string().min(1), position: z.number().finite().optional(), board: z.string().min(1).optional() }).strict(),
    responses: { 200: { description: 'The card', schema: CardEnvelope } },
    handler: ({ deps, actor, params, body }) => ({ status: 200, body: { card: moveCard(deps, actor, params.id, body) } }),
  })
  api.add({
    method: 'post', path: '/v1/cards/{id}/complete', tag: 'Cards', access: 'write', summary: 'Complete or reopen a card',
    params: idParam, body: z.object({ completed: z.boolean().default(true) }).strict(),
    responses: { 200: { description: 'The card', schema: CardEnvelope } },
    handler: ({ deps, actor, params, body }) => ({ status: 200, body: { card: updateCard(deps, actor, params.id, { completed: body.completed }) } }),
  })
}
