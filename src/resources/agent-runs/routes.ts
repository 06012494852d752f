// /v1/agent-runs: an agent's work on a card, the activity it reports, and what people decide about it.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { CardSchema } from '../cards/schema.js'
import { AGENT_ACTIVITY_LIST, AGENT_RUN_LIST } from './query.js'
import { ActivityBody, ActivityEntrySchema, AgentRunSchema, ReturnBody, RunListQuery } from './schema.js'
import { approveRun, cancelRun, getRunFor, listActivity, listRuns, reportActivity, returnRun } from './service.js'

const Run = envelope('agent_run', AgentRunSchema)
const Expanded = AgentRunSchema.extend({ expand: z.strictObject({ card: CardSchema }).optional() })

export const agentRunRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/agent-runs',
    operationId: 'listAgentRuns',
    tag: 'Agents',
    access: 'read',
    summary: 'List agent runs, newest first',
    query: listQuery(AGENT_RUN_LIST).extend(RunListQuery.shape),
    responses: { 200: { description: 'A page of runs', schema: pageSchema(Expanded, 'AgentRunPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listRuns(deps, actor, query) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/agent-runs/{id}',
    operationId: 'getAgentRun',
    tag: 'Agents',
    access: 'read',
    summary: 'Get an agent run',
    params: idParam,
    query: listQuery(AGENT_RUN_LIST).pick({ expand: true }),
    responses: { 200: { description: 'The run', schema: envelope('agent_run', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { agent_run: await getRunFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/agent-runs/{id}/activity',
    operationId: 'listAgentRunActivity',
    tag: 'Agents',
    access: 'read',
    summary: "A run's activity, oldest first: what the agent reported and what happened to the run",
    params: idParam,
    query: listQuery(AGENT_ACTIVITY_LIST),
    responses: { 200: { description: 'A page of activity', schema: pageSchema(ActivityEntrySchema, 'AgentActivityPage') } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: await listActivity(deps, actor, params.id, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-runs/{id}/activity',
    operationId: 'reportAgentRunActivity',
    tag: 'Agents',
    access: 'write',
    summary: "The run's agent reports (with its own token): started, heartbeat, blocked, done_proposed, completed, failed or handoff",
    params: idParam,
    body: ActivityBody,
    errors: [403, 409],
    responses: { 201: { description: 'The run after the report', schema: Run } },
    handler: async ({ deps, actor, params, body }) => ({ status: 201, body: { agent_run: await reportActivity(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-runs/{id}/approve',
    operationId: 'approveAgentRun',
    tag: 'Agents',
    access: 'write',
    summary: "Approve the agent's done proposal (people only): the run completes and the card is completed, or handed to the next workflow step",
    params: idParam,
    errors: [403, 409],
    responses: { 200: { description: 'The run', schema: Run } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { agent_run: await approveRun(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-runs/{id}/return',
    operationId: 'returnAgentRun',
    tag: 'Agents',
    access: 'write',
    summary: "Return the agent's done proposal with feedback (people only): the run goes on",
    params: idParam,
    body: ReturnBody,
    errors: [403, 409],
    responses: { 200: { description: 'The run', schema: Run } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { agent_run: await returnRun(deps, actor, params.id, body.feedback) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-runs/{id}/cancel',
    operationId: 'cancelAgentRun',
    tag: 'Agents',
    access: 'write',
    summary: 'Cancel a run that has not ended (people only)',
    params: idParam,
    errors: [403, 409],
    responses: { 200: { description: 'The run', schema: Run } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { agent_run: await cancelRun(deps, actor, params.id) } }),
  }),
]
