// /v1/pipelines: CI runs of git repositories.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { GitRepositorySchema } from '../git/schema.js'
import { PIPELINE_LIST } from './query.js'
import { CreatePipelineBody, PipelineSchema, UpdatePipelineBody } from './schema.js'
import { createPipeline, deletePipeline, getPipelineFor, listPipelines, updatePipeline } from './service.js'

const TAG = 'Pipelines'
const Expanded = PipelineSchema.extend({ expand: z.strictObject({ repository: GitRepositorySchema }).optional() })
const Pipeline = envelope('pipeline', Expanded)

const ABOUT = [
  'A pipeline is a CI run of a git repository. The code hosts report theirs through a git connection’s hook (GitHub and Gitea `workflow_run`, GitLab `Pipeline Hook`; status mapped from the run’s status and conclusion);',
  'any other CI reports its runs here, with a write token of someone who sees the repository (owners and admins, or members of its board).',
  'A run is linked to the cards its branch name or head commit message mention by key (`LCH-12`, any case, whole word, old prefixes too), and to those its branch and commit git resources link; only cards of the repository’s board when it has one.',
  'Turning `failure` runs the repository’s `pipeline.failed` rules, as the connection. Events: `pipeline.created` and `pipeline.updated`, one per board of its cards (workspace-wide when it has none).',
  'Seen by owners and admins, by whoever sees one of its cards, and by the members of its repository’s board. Cards show theirs with `expand=pipelines`.',
].join(' ')

export const pipelineRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/pipelines',
    operationId: 'listPipelines',
    tag: TAG,
    access: 'read',
    summary: 'List the pipelines the caller sees, newest first',
    description: ABOUT,
    query: listQuery(PIPELINE_LIST).extend({
      repository: z.string().optional().meta({ description: 'Only the pipelines of this repository (record id).' }),
      card: z.string().optional().meta({ description: 'Only the pipelines concerning this card (record id; 404 when the caller does not see it).' }),
    }),
    errors: [404],
    responses: { 200: { description: 'A page of pipelines', schema: pageSchema(Expanded, 'PipelinePage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listPipelines(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/pipelines',
    operationId: 'createPipeline',
    tag: TAG,
    access: 'write',
    summary: 'Report a CI run of a git repository (any CI)',
    description: `${ABOUT} \`started_at\` is set when it turns \`running\`, \`finished_at\` when it turns \`success\`, \`failure\` or \`canceled\`, unless given.`,
    body: CreatePipelineBody,
    errors: [409],
    responses: { 201: { description: 'The pipeline', schema: envelope('pipeline', PipelineSchema) } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { pipeline: await createPipeline(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/pipelines/{id}',
    operationId: 'getPipeline',
    tag: TAG,
    access: 'read',
    summary: 'Get a pipeline',
    params: idParam,
    query: listQuery(PIPELINE_LIST).pick({ expand: true }),
    responses: { 200: { description: 'The pipeline', schema: Pipeline } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { pipeline: await getPipelineFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/pipelines/{id}',
    operationId: 'updatePipeline',
    tag: TAG,
    access: 'write',
    summary: 'Update a pipeline’s status, name, link or times',
    description: 'Turning `failure` runs the repository’s `pipeline.failed` rules; a change emits `pipeline.updated` with `previous_status`.',
    params: idParam,
    body: UpdatePipelineBody,
    responses: { 200: { description: 'The pipeline', schema: envelope('pipeline', PipelineSchema) } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { pipeline: await updatePipeline(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/pipelines/{id}',
    operationId: 'deletePipeline',
    tag: TAG,
    access: 'write',
    summary: 'Delete a pipeline (owners, admins, or who reported it through the API)',
    params: idParam,
    errors: [403],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deletePipeline(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
