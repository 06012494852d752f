// /v1/cards: list with query parameters and filter, create (idempotent), get, update, trash, move, complete.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam, queryBool } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { CARD_LIST } from './query.js'
import { CardListQuery, CardSchema, COMPLETION_RULE, CompleteCardBody, CreateCardBody, MoveCardBody, UpdateCardBody } from './schema.js'
import { createCard, getCardFor, listCards, moveCard, trashCard, updateCard } from './service.js'

const Card = envelope('card', CardSchema)

export const cardRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/cards',
    operationId: 'listCards',
    tag: 'Cards',
    access: 'read',
    summary: 'List cards of the visible boards',
    description:
      "Query parameters and `filter` combine with AND. Default order: position, then created. With `saved_filter`, the saved filter (/v1/saved-filters) combines with them too: its filter AND this request's; this request's `sort` and `expand` win, else the saved ones; 404 for a saved filter you do not see.",
    query: listQuery(CARD_LIST).extend(CardListQuery.shape),
    errors: [404],
    responses: { 200: { description: 'A page of cards', schema: pageSchema(CardSchema, 'CardPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listCards(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/cards',
    operationId: 'createCard',
    tag: 'Cards',
    access: 'write',
    summary: 'Create a card',
    description:
      "With an `idempotency_key` already used by a card of the same board (not trashed), that card is returned with `existing: true` and status 200; nothing is created. `list` defaults to the board's first list (with `completed: true`, its first `completed` list). " +
      COMPLETION_RULE,
    body: CreateCardBody,
    errors: [404],
    responses: {
      201: { description: 'The new card', schema: Card },
      200: { description: 'An idempotent replay: the existing card, with existing: true', schema: Card },
    },
    handler: async ({ deps, actor, body }) => {
      const { card, existing } = await createCard(deps, actor, body)
      return { status: existing ? 200 : 201, body: { card } }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/cards/{id}',
    operationId: 'getCard',
    tag: 'Cards',
    access: 'read',
    summary: 'Get a card by its record id (not its key)',
    params: idParam,
    query: listQuery(CARD_LIST).pick({ expand: true }),
    responses: { 200: { description: 'The card', schema: Card } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { card: await getCardFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/cards/{id}',
    operationId: 'updateCard',
    tag: 'Cards',
    access: 'write',
    summary: 'Update a card; `assignees`, `tags` and `watchers` replace the whole set',
    description: COMPLETION_RULE,
    params: idParam,
    body: UpdateCardBody,
    responses: { 200: { description: 'The card', schema: Card } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { card: await updateCard(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/cards/{id}',
    operationId: 'deleteCard',
    tag: 'Cards',
    access: 'write',
    summary: 'Move a card to the trash (frees its idempotency key), or delete it with permanent=true',
    params: idParam,
    query: z.object({ permanent: queryBool.default(false) }),
    responses: { 204: { description: 'Trashed or deleted' } },
    handler: async ({ deps, actor, params, query }) => {
      await trashCard(deps, actor, params.id, query.permanent)
      return { status: 204 }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/cards/{id}/move',
    operationId: 'moveCard',
    tag: 'Cards',
    access: 'write',
    summary: 'Move a card to a list, optionally on another board (it then gets a key of that board)',
    description: COMPLETION_RULE,
    params: idParam,
    body: MoveCardBody,
    responses: { 200: { description: 'The card', schema: Card } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { card: await moveCard(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/cards/{id}/complete',
    operationId: 'completeCard',
    tag: 'Cards',
    access: 'write',
    summary: 'Complete or reopen a card',
    description: COMPLETION_RULE,
    params: idParam,
    body: CompleteCardBody,
    responses: { 200: { description: 'The card', schema: Card } },
    handler: async ({ deps, actor, params, body }) => ({
      status: 200,
      body: { card: await updateCard(deps, actor, params.id, { completed: body.completed }) },
    }),
  }),
]
