// /v1/entity-links: links from a card to a card, a note, a milestone or a URL; parent_of links are cards' parents.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { DependencyCardSchema } from '../dependencies/schema.js'
import { ENTITY_LINK_LIST } from './query.js'
import { CreateEntityLinkBody, EntityLinkSchema, UpdateEntityLinkBody } from './schema.js'
import { createLink, deleteLink, getLinkFor, listLinks, updateLink } from './service.js'

const Link = envelope('entity_link', EntityLinkSchema)
const Expanded = EntityLinkSchema.extend({
  expand: z
    .strictObject({ source: DependencyCardSchema.nullable(), target: DependencyCardSchema.nullable() })
    .optional()
    .meta({ description: '`expand=cards`: the source card and a card target; null for one on a board you do not see, or a target that is no card.' }),
})

export const entityLinkRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/entity-links',
    operationId: 'listEntityLinks',
    tag: 'Entity links',
    access: 'read',
    summary: 'List links (from or to one card with `card`); oldest first',
    description: 'A link is visible to whoever sees its source card or its target card. With `card` (a card you see, else 404), the links from or to it.',
    errors: [404],
    query: listQuery(ENTITY_LINK_LIST).extend({ card: z.string().optional().meta({ description: 'Only the links from or to this card.' }) }),
    responses: { 200: { description: 'A page of links', schema: pageSchema(Expanded, 'EntityLinkPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listLinks(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/entity-links',
    operationId: 'createEntityLink',
    tag: 'Entity links',
    access: 'write',
    summary: 'Link a card to a card, a note, a milestone or a URL',
    description:
      "The source card, and a card or note target, must be visible to you (404 otherwise). The same link twice is a 409 (`relates_to` either way round). A URL target is an http(s) URL, stored as given: taskd never follows or fetches it. `parent_of` makes the source card the parent of the target card: a card has at most one parent (409 when it has one; change it through the card's `parent`), and a parent chain that would cycle is a 422 naming the cards by keys. The child card shows `parent`, the parent `subtasks`; `card.updated` naming `parent` is emitted beside `entity_link.created`.",
    body: CreateEntityLinkBody,
    errors: [404, 409],
    responses: { 201: { description: 'The link', schema: Link } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { entity_link: await createLink(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/entity-links/{id}',
    operationId: 'getEntityLink',
    tag: 'Entity links',
    access: 'read',
    summary: 'Get a link',
    params: idParam,
    query: listQuery(ENTITY_LINK_LIST).pick({ expand: true }),
    responses: { 200: { description: 'The link', schema: envelope('entity_link', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { entity_link: await getLinkFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/entity-links/{id}',
    operationId: 'updateEntityLink',
    tag: 'Entity links',
    access: 'write',
    summary: "Change a link's label (`title`)",
    params: idParam,
    body: UpdateEntityLinkBody,
    responses: { 200: { description: 'The link', schema: Link } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { entity_link: await updateLink(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/entity-links/{id}',
    operationId: 'deleteEntityLink',
    tag: 'Entity links',
    access: 'write',
    summary: 'Remove a link (a parent_of link: the child card loses its parent)',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteLink(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
