// /v1/automations and their runs.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { AUTOMATION_LIST, RUN_LIST } from './query.js'
import { AutomationRunSchema, AutomationSchema, CreateAutomationBody, UpdateAutomationBody } from './schema.js'
import { createAutomation, deleteAutomation, getAutomationFor, getRunFor, listAutomations, listRuns, updateAutomation } from './service.js'

const Automation = envelope('automation', AutomationSchema)
const TAG = 'Automations'

/** Who sees what a run's steps sent and got back. */
const RUN_DETAILS =
  "Everyone who sees the automation sees each run's status and each step's status and times. What the steps sent and got back (each step's `output` and `error`) is shown only to those who may manage the automation: a write or Full Access token on its board, and where the run's steps use signing secrets, owners and admins only. Others get them as null, and the run says `details_hidden: true`. Echoes of a secret in a receiver's answer are taken out in any case."

export const automationRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/automations',
    operationId: 'listAutomations',
    tag: TAG,
    access: 'read',
    summary: 'List the automations of the boards you see',
    query: listQuery(AUTOMATION_LIST).extend({ board: z.string().optional().meta({ description: 'Board id.' }) }),
    responses: { 200: { description: 'A page of automations', schema: pageSchema(AutomationSchema, 'AutomationPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listAutomations(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/automations',
    operationId: 'createAutomation',
    tag: TAG,
    access: 'write',
    summary: 'Create an automation on a board you are a member of: a trigger and 1 to 20 steps',
    description: [
      'Triggers: an incoming endpoint (whose board allowlist is empty or holds the board), events of the board (selectors as for webhooks, optionally narrowed by a card filter), or a 5-field cron schedule in a time zone (a slot missed while the server was down runs once at start).',
      'Placeholders in any string of a step: {webhook.name|method|body|ip|files|files_count}, {webhook.body.<field>}, {webhook.query.<param>}, {webhook.header.<name>}, {event.name}, {event.data.<path>}, {steps.<n>.<path>}, {run.id}, {now};',
      'one with no value becomes the empty string; {{ and }} write literal braces. {secret.<id>} may stand only in an http_request header value and is replaced only in the request sent.',
      'Steps that name a signing secret may be saved by owners and admins only (403 otherwise). Changes a run makes start no event automations (no loops).',
    ].join(' '),
    body: CreateAutomationBody,
    errors: [404],
    responses: { 201: { description: 'The automation', schema: Automation } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { automation: await createAutomation(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/automations/runs/{id}',
    operationId: 'getAutomationRun',
    tag: TAG,
    access: 'read',
    summary: 'Get a run with the outcome of each step',
    description: RUN_DETAILS,
    params: idParam,
    responses: { 200: { description: 'The run', schema: envelope('run', AutomationRunSchema) } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { run: await getRunFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/automations/{id}',
    operationId: 'getAutomation',
    tag: TAG,
    access: 'read',
    summary: 'Get an automation',
    params: idParam,
    responses: { 200: { description: 'The automation', schema: Automation } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { automation: await getAutomationFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/automations/{id}',
    operationId: 'updateAutomation',
    tag: TAG,
    access: 'write',
    summary: 'Change an automation, or turn it on or off (queued runs of an automation turned off fail)',
    params: idParam,
    body: UpdateAutomationBody,
    responses: { 200: { description: 'The automation', schema: Automation } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { automation: await updateAutomation(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/automations/{id}',
    operationId: 'deleteAutomation',
    tag: TAG,
    access: 'write',
    summary: 'Delete an automation and its runs',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteAutomation(deps, actor, params.id)
      return { status: 204 }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/automations/{id}/runs',
    operationId: 'listAutomationRuns',
    tag: TAG,
    access: 'read',
    summary: "The automation's runs, newest first (the newest 200 finished ones are kept, and every unfinished one)",
    description: RUN_DETAILS,
    params: idParam,
    query: listQuery(RUN_LIST),
    responses: { 200: { description: 'A page of runs', schema: pageSchema(AutomationRunSchema, 'AutomationRunPage') } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: await listRuns(deps, actor, params.id, query) }),
  }),
]
