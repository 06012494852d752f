// /v1/milestones: a board's milestones.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { MILESTONE_LIST } from './query.js'
import { CreateMilestoneBody, MilestoneSchema, UpdateMilestoneBody } from './schema.js'
import { createMilestone, deleteMilestone, getMilestoneFor, listMilestones, updateMilestone } from './service.js'

const Milestone = envelope('milestone', MilestoneSchema)

const ABOUT =
  'A milestone belongs to a board; a card of that board names it with `milestone` (create, PATCH, bulk-update-cards; a milestone of another board is a 422 naming `milestone`), and `progress` counts its completed and all cards. Filters on cards: `milestone = "<id>"`, `milestone.name = "Beta"`. Any member of the board with a write token manages its milestones.'

export const milestoneRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/milestones',
    operationId: 'listMilestones',
    tag: 'Milestones',
    access: 'read',
    summary: 'List the milestones of the visible boards',
    description: ABOUT,
    query: listQuery(MILESTONE_LIST).extend({ board: z.string().optional().meta({ description: 'Only the milestones of this board.' }) }),
    responses: {
      200: {
        description: 'A page of milestones',
        schema: pageSchema(MilestoneSchema.extend({ expand: z.strictObject({ board: BoardSchema }).optional() }), 'MilestonePage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listMilestones(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/milestones',
    operationId: 'createMilestone',
    tag: 'Milestones',
    access: 'write',
    summary: 'Create a milestone on a board',
    description: ABOUT,
    body: CreateMilestoneBody,
    errors: [404],
    responses: { 201: { description: 'The milestone', schema: Milestone } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { milestone: await createMilestone(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/milestones/{id}',
    operationId: 'getMilestone',
    tag: 'Milestones',
    access: 'read',
    summary: 'Get a milestone with its progress',
    params: idParam,
    responses: { 200: { description: 'The milestone', schema: Milestone } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { milestone: await getMilestoneFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/milestones/{id}',
    operationId: 'updateMilestone',
    tag: 'Milestones',
    access: 'write',
    summary: 'Rename, describe, reschedule, close or re-open a milestone (closing changes no card)',
    params: idParam,
    body: UpdateMilestoneBody,
    responses: { 200: { description: 'The milestone', schema: Milestone } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { milestone: await updateMilestone(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/milestones/{id}',
    operationId: 'deleteMilestone',
    tag: 'Milestones',
    access: 'write',
    summary: 'Delete a milestone; its cards stay, with milestone null (each announced with card.updated)',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteMilestone(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
