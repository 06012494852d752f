// /v1/groups: groups and teams of users.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { UserSchema } from '../users/schema.js'
import { GROUP_LIST } from './query.js'
import { CreateGroupBody, GroupSchema, UpdateGroupBody } from './schema.js'
import { createGroup, deleteGroup, getGroupFor, listGroups, updateGroup } from './service.js'

const Group = envelope('group', GroupSchema)

const ABOUT =
  'Groups and teams are workspace-wide sets of users: workspace owners and admins manage them (others get 403), every member reads them. `GET /v1/cards?team=<group id>` and the card filter `team = "<group id>"` select the cards assigned to any of its members; `POST /v1/boards/{id}/members { group }` adds all its members to a board. The user filter `groups ~ "<group id>"` selects its members.'

export const groupRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/groups',
    operationId: 'listGroups',
    tag: 'Groups',
    access: 'read',
    summary: "List the workspace's groups and teams",
    description: ABOUT,
    query: listQuery(GROUP_LIST),
    responses: {
      200: {
        description: 'A page of groups',
        schema: pageSchema(GroupSchema.extend({ expand: z.strictObject({ members: z.array(UserSchema) }).optional() }), 'GroupPage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listGroups(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/groups',
    operationId: 'createGroup',
    tag: 'Groups',
    access: 'write',
    summary: 'Create a group or team (owners and admins); names are unique in the workspace whatever the case (409)',
    description: ABOUT,
    body: CreateGroupBody,
    errors: [409],
    responses: { 201: { description: 'The group', schema: Group } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { group: await createGroup(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/groups/{id}',
    operationId: 'getGroup',
    tag: 'Groups',
    access: 'read',
    summary: 'Get a group or team',
    params: idParam,
    responses: { 200: { description: 'The group', schema: Group } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { group: await getGroupFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/groups/{id}',
    operationId: 'updateGroup',
    tag: 'Groups',
    access: 'write',
    summary: 'Rename a group, change its kind or replace its members (owners and admins)',
    params: idParam,
    body: UpdateGroupBody,
    errors: [409],
    responses: { 200: { description: 'The group', schema: Group } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { group: await updateGroup(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/groups/{id}',
    operationId: 'deleteGroup',
    tag: 'Groups',
    access: 'write',
    summary: 'Delete a group or team (owners and admins); its members stay on the boards they joined',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteGroup(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
