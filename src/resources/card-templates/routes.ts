// /v1/card-templates: per board, what a new card starts with (POST /v1/cards { board, template }).
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { CARD_TEMPLATE_LIST } from './query.js'
import { CreateCardTemplateBody, CardTemplateSchema, UpdateCardTemplateBody } from './schema.js'
import { createCardTemplate, deleteCardTemplate, getCardTemplateFor, listCardTemplates, updateCardTemplate } from './service.js'

const CardTemplate = envelope('card_template', CardTemplateSchema)

export const cardTemplateRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/card-templates',
    operationId: 'listCardTemplates',
    tag: 'Card templates',
    access: 'read',
    summary: 'List card templates of the visible boards',
    query: listQuery(CARD_TEMPLATE_LIST).extend({ board: z.string().optional().meta({ description: 'Only the card templates of this board.' }) }),
    responses: {
      200: {
        description: 'A page of card templates',
        schema: pageSchema(CardTemplateSchema.extend({ expand: z.strictObject({ board: BoardSchema }).optional() }), 'CardTemplatePage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listCardTemplates(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/card-templates',
    operationId: 'createCardTemplate',
    tag: 'Card templates',
    access: 'write',
    summary:
      'Create a card template (board writers); names are unique per board (409 on a clash). Tags, assignees and custom field keys must be of the board (422 naming the field).',
    body: CreateCardTemplateBody,
    errors: [404, 409, 422],
    responses: { 201: { description: 'The card template', schema: CardTemplate } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { card_template: await createCardTemplate(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/card-templates/{id}',
    operationId: 'getCardTemplate',
    tag: 'Card templates',
    access: 'read',
    summary: 'Get a card template',
    params: idParam,
    responses: { 200: { description: 'The card template', schema: CardTemplate } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { card_template: await getCardTemplateFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/card-templates/{id}',
    operationId: 'updateCardTemplate',
    tag: 'Card templates',
    access: 'write',
    summary: 'Change a card template (the cards made from it stay as they are)',
    params: idParam,
    body: UpdateCardTemplateBody,
    errors: [409, 422],
    responses: { 200: { description: 'The card template', schema: CardTemplate } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { card_template: await updateCardTemplate(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/card-templates/{id}',
    operationId: 'deleteCardTemplate',
    tag: 'Card templates',
    access: 'write',
    summary: 'Delete a card template (the cards made from it stay as they are)',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteCardTemplate(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
