// /v1/users: the caller, the workspace's users, and (owners/admins) user management.
import { z } from 'zod'
import { applyFilter } from '../filter/index.js'
import { createUser, updateUser, userView } from '../domain/users.js'
import type { UsersTable } from '../db/types.js'
import { notFound } from '../http/errors.js'
import { expandQuery, pageQuery, pageSchema, parseExpand, parseSort, runPage } from '../http/paging.js'
import { boardView } from '../domain/views.js'
import { boardsSharedWith } from '../store/boards.js'
import type { Api } from '../http/route.js'
import { getUser, usersQuery } from '../store/users.js'
import { BoardSchema, idParam, name, UserSchema } from './schemas.js'

const Role = z.enum(['owner', 'admin', 'member'])
export const USER_SORT = { created: 'users.created_at', name: 'users.name', email: 'users.email', role: 'users.role' }

export function userRoutes(api: Api): void {
  api.add({
    method: 'get', path: '/v1/users/me', tag: 'Users', access: 'read', summary: 'The token\'s user',
    responses: { 200: { description: 'The user', schema: z.object({ user: UserSchema }) } },
    handler: ({ actor }) => ({ status: 200, body: { user: userView(actor.user) } }),
  })
  api.add({
    method: 'get', path: '/v1/users', tag: 'Users', access: 'read', summary: 'List the workspace\'s users',
    query: z.object({ ...pageQuery, ...expandQuery(['boards']) }),
    responses: { 200: { description: 'A page of users; `expand=boards` lists the boards each shares with you', schema: pageSchema(UserSchema.extend({ expand: z.object({ boards: z.array(BoardSchema) }).optional() }), 'UserPage') } },
    handler: ({ deps, actor, query }) => {
      const expand = parseExpand(query.expand, ['boards'])
      const base = applyFilter(usersQuery(), 'users', query.filter)
      const order = query.sort ? parseSort(query.sort, USER_SORT) : parseSort('created', USER_SORT)
      return { status: 200, body: runPage(deps.sql, base, 'users', { page: query.page, perPage: query.per_page, order }, (rows: UsersTable[]) => {
        if (!expand.has('boards')) return rows.map(userView)
        const shared = boardsSharedWith(deps.sql, rows.map((r) => r.id), actor.user.id)
        return rows.map((r) => ({ ...userView(r), expand: { boards: shared.filter((b) => b.user_id === r.id).map(boardView) } }))
      }) }
    },
  })
  api.add({
    method: 'get', path: '/v1/users/{id}', tag: 'Users', access: 'read', summary: 'Get a user', params: idParam,
    responses: { 200: { description: 'The user', schema: z.object({ user: UserSchema }) } },
    handler: ({ deps, params }) => {
      const user = getUser(deps.sql, params.id)
      if (!user) throw notFound('user')
      return { status: 200, body: { user: userView(user) } }
    },
  })
  api.add({
    method: 'post', path: '/v1/users', tag: 'Users', access: 'full', summary: 'Create a user (owners and admins, Full Access token)',
    body: z.object({ email: z.string().email().max(320), name, role: Role.default('member'), kind: z.enum(['human', 'agent']).default('human') }),
    responses: { 201: { description: 'The new user', schema: z.object({ user: UserSchema }) } },
    handler: ({ deps, actor, body }) => ({ status: 201, body: { user: createUser(deps, actor, body) } }),
  })
  api.add({
    method: 'patch', path: '/v1/users/{id}', tag: 'Users', access: 'full', summary: 'Change a user\'s name, email or role (owners and admins, Full Access token)',
    params: idParam,
    body: z.object({ email: z.string().email().max(320).optional(), name: name.optional(), role: Role.optional() }).strict(),
    responses: { 200: { description: 'The user', schema: z.object({ user: UserSchema }) } },
    handler: ({ deps, actor, params, body }) => ({ status: 200, body: { user: updateUser(deps, actor, params.id, body) } }),
  })
}
