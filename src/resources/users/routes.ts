// /v1/users: the caller, the workspace's users, and (owners/admins) user management.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { USER_LIST } from './query.js'
import { CreateUserBody, UpdateMeBody, UpdateUserBody, UserSchema } from './schema.js'
import { createUser, getMe, getUserFor, listUsers, updateMe, updateUser } from './service.js'

const User = envelope('user', UserSchema)

export const userRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/users/me',
    operationId: 'getMe',
    tag: 'Users',
    access: 'read',
    summary: "The token's user",
    responses: { 200: { description: 'The user', schema: User } },
    handler: async ({ deps, actor }) => ({ status: 200, body: { user: await getMe(deps, actor) } }),
  }),
  // Before PATCH /v1/users/{id}, which would otherwise take `me` for an id.
  defineRoute({
    method: 'patch',
    path: '/v1/users/me',
    operationId: 'updateMe',
    tag: 'Users',
    access: 'write',
    summary: 'Change your own name, email or password',
    description: [
      'Any user, with a token that may write (or a session). An email another user has (in any case) is a 409. Your role is changed by an owner or admin through `PATCH /v1/users/{id}`. Like that route, it emits no webhook event.\n\n`password` (people only: agents act with tokens): at least 10 characters, at most 1,000 bytes (UTF-8), else 422 naming `password`; stored only as a salted scrypt hash (N=2^15, r=8, p=1), never shown, logged or sent in an event.',
      'To change a password you have, send it as `current_password` (a wrong one is a 422 naming it, and counts against the account as a failed sign-in: 429 past TASKD_SIGNIN_FAILURES_PER_MINUTE).',
      'Your first password is set without one, but only from a browser session (which, before you have a password, only a login link from `taskd user login-link EMAIL` makes); a token cannot set it (403), so a token that leaks cannot become a password. Whoever runs the server can also set it with `taskd user set-password EMAIL` (read from stdin, never the command line).',
      'A new password ends your other sessions (the one it came through stays) and your unused login links.',
    ].join(' '),
    body: UpdateMeBody,
    errors: [409, 429],
    responses: { 200: { description: 'You, changed', schema: User } },
    handler: async ({ deps, actor, body }) => ({ status: 200, body: { user: await updateMe(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/users',
    operationId: 'listUsers',
    tag: 'Users',
    access: 'read',
    summary: "List the workspace's users",
    query: listQuery(USER_LIST),
    responses: {
      200: {
        description: 'A page of users; `expand=boards` lists the boards each shares with you',
        schema: pageSchema(UserSchema.extend({ expand: z.strictObject({ boards: z.array(BoardSchema) }).optional() }), 'UserPage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listUsers(deps, actor, query) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/users/{id}',
    operationId: 'getUser',
    tag: 'Users',
    access: 'read',
    summary: 'Get a user',
    params: idParam,
    responses: { 200: { description: 'The user', schema: User } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { user: await getUserFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/users',
    operationId: 'createUser',
    tag: 'Users',
    access: 'full',
    summary: 'Create a user (owners and admins, Full Access token)',
    body: CreateUserBody,
    errors: [409],
    responses: { 201: { description: 'The new user', schema: User } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { user: await createUser(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/users/{id}',
    operationId: 'updateUser',
    tag: 'Users',
    access: 'full',
    summary: "Change a user's name, email or role (owners and admins, Full Access token)",
    params: idParam,
    body: UpdateUserBody,
    errors: [409],
    responses: { 200: { description: 'The user', schema: User } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { user: await updateUser(deps, actor, params.id, body) } }),
  }),
]
