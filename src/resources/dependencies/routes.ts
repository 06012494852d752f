// /v1/dependencies: one card waiting for another.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { DEPENDENCY_LIST } from './query.js'
import { CreateDependencyBody, DependencyCardSchema, DependencySchema } from './schema.js'
import { createDependency, deleteDependency, getDependencyExpanded, listDependencies } from './service.js'

const Expanded = DependencySchema.extend({
  expand: z
    .strictObject({ blocker: DependencyCardSchema.nullable(), blocked: DependencyCardSchema.nullable() })
    .optional()
    .meta({ description: '`expand=cards`: both cards; null for one on a board you do not see.' }),
})

export const dependencyRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/dependencies',
    operationId: 'listDependencies',
    tag: 'Dependencies',
    access: 'read',
    summary: 'List dependencies (of one card, both directions, with `card`); oldest first',
    description:
      'A dependency is visible to whoever sees either of its cards. With `card` (a card you see, else 404), the dependencies where it blocks or is blocked.',
    errors: [404],
    query: listQuery(DEPENDENCY_LIST).extend({ card: z.string().optional().meta({ description: 'Only the dependencies of this card, either way.' }) }),
    responses: { 200: { description: 'A page of dependencies', schema: pageSchema(Expanded, 'DependencyPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listDependencies(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/dependencies',
    operationId: 'createDependency',
    tag: 'Dependencies',
    access: 'write',
    summary: 'Make a card wait for another: `blocker` blocks `blocked`',
    description:
      'Both cards must be visible to you (404 otherwise); they may be on different boards. A card cannot block itself (422), the same pair twice is a 409, and a dependency that would close a cycle is a 422 whose message names the cycle by keys (`LCH-3 → LCH-7 → LCH-3`). The blocked card shows `blocked_by_open`, the count of its blockers not completed; completing a blocked card stays allowed.',
    body: CreateDependencyBody,
    errors: [404, 409],
    responses: { 201: { description: 'The dependency', schema: envelope('dependency', DependencySchema) } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { dependency: await createDependency(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/dependencies/{id}',
    operationId: 'getDependency',
    tag: 'Dependencies',
    access: 'read',
    summary: 'Get a dependency',
    params: idParam,
    query: listQuery(DEPENDENCY_LIST).pick({ expand: true }),
    responses: { 200: { description: 'The dependency', schema: envelope('dependency', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({
      status: 200,
      body: { dependency: await getDependencyExpanded(deps, actor, params.id, query.expand) },
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/dependencies/{id}',
    operationId: 'deleteDependency',
    tag: 'Dependencies',
    access: 'write',
    summary: 'Remove a dependency',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteDependency(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
