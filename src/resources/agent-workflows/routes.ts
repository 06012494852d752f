// /v1/agent-workflows: ordered agent steps per board; the default one is used by kickoffs that name no agent.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { WORKFLOW_LIST } from './query.js'
import { AgentWorkflowSchema, CreateWorkflowBody, UpdateWorkflowBody } from './schema.js'
import { createWorkflow, deleteWorkflow, getWorkflowFor, listWorkflows, updateWorkflow } from './service.js'

const Workflow = envelope('agent_workflow', AgentWorkflowSchema)

export const workflowRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/agent-workflows',
    operationId: 'listAgentWorkflows',
    tag: 'Agents',
    access: 'read',
    summary: 'List agent workflows (of one board with `board`)',
    query: listQuery(WORKFLOW_LIST).extend({ board: z.string().optional().meta({ description: 'Only the workflows of this board.' }) }),
    responses: { 200: { description: 'A page of workflows', schema: pageSchema(AgentWorkflowSchema, 'AgentWorkflowPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listWorkflows(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-workflows',
    operationId: 'createAgentWorkflow',
    tag: 'Agents',
    access: 'write',
    summary: 'Create a workflow on a board; `default: true` makes it the board’s default (the previous default stops being one)',
    body: CreateWorkflowBody,
    errors: [403, 404],
    responses: { 201: { description: 'The workflow', schema: Workflow } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { agent_workflow: await createWorkflow(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/agent-workflows/{id}',
    operationId: 'getAgentWorkflow',
    tag: 'Agents',
    access: 'read',
    summary: 'Get a workflow',
    params: idParam,
    responses: { 200: { description: 'The workflow', schema: Workflow } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { agent_workflow: await getWorkflowFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/agent-workflows/{id}',
    operationId: 'updateAgentWorkflow',
    tag: 'Agents',
    access: 'write',
    summary: 'Rename a workflow, make it the default, or replace its steps',
    params: idParam,
    body: UpdateWorkflowBody,
    errors: [403],
    responses: { 200: { description: 'The workflow', schema: Workflow } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { agent_workflow: await updateWorkflow(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/agent-workflows/{id}',
    operationId: 'deleteAgentWorkflow',
    tag: 'Agents',
    access: 'write',
    summary: 'Delete a workflow (its kickoffs and runs stay)',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteWorkflow(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
