// /v1/templates: workspace-level board templates; POST /v1/boards { name, template } builds a board from one.
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { TEMPLATE_LIST } from './query.js'
import { CreateTemplateBody, TemplateSchema, UpdateTemplateBody } from './schema.js'
import { createTemplate, deleteTemplate, getTemplateFor, listTemplates, updateTemplate } from './service.js'

const Template = envelope('template', TemplateSchema)

export const templateRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/templates',
    operationId: 'listTemplates',
    tag: 'Templates',
    access: 'read',
    summary: 'List the board templates of the workspace (every member reads them)',
    query: listQuery(TEMPLATE_LIST),
    responses: {
      200: {
        description: 'A page of board templates',
        schema: pageSchema(TemplateSchema, 'TemplatePage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listTemplates(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/templates',
    operationId: 'createTemplate',
    tag: 'Templates',
    access: 'write',
    summary:
      'Create a board template: a snapshot of a board you see (`board`, optionally `include_cards`) or `content` given as it is (checked: 422 naming the field). Use it with POST /v1/boards { name, template }.',
    body: CreateTemplateBody,
    errors: [404, 422],
    responses: { 201: { description: 'The board template', schema: Template } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { template: await createTemplate(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/templates/{id}',
    operationId: 'getTemplate',
    tag: 'Templates',
    access: 'read',
    summary: 'Get a board template',
    params: idParam,
    responses: { 200: { description: 'The board template', schema: Template } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { template: await getTemplateFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/templates/{id}',
    operationId: 'updateTemplate',
    tag: 'Templates',
    access: 'write',
    summary: 'Rename a board template or replace its content (its creator, workspace owners and admins; 403 for others)',
    params: idParam,
    body: UpdateTemplateBody,
    errors: [403, 422],
    responses: { 200: { description: 'The board template', schema: Template } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { template: await updateTemplate(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/templates/{id}',
    operationId: 'deleteTemplate',
    tag: 'Templates',
    access: 'write',
    summary: 'Delete a board template (its creator, workspace owners and admins); boards built from it stay',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteTemplate(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
