// /v1/tokens: personal access tokens. The raw value is returned once, on creation.
import { z } from 'zod'
import { defineRoute, NO_STORE } from '../../http/route.js'
import { idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { UserSchema } from '../users/schema.js'
import { TOKEN_LIST } from './query.js'
import { CreateTokenBody, TokenSchema } from './schema.js'
import { createToken, listTokens, revokeToken } from './service.js'

export const tokenRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/tokens',
    operationId: 'listTokens',
    tag: 'Tokens',
    access: 'read',
    summary: 'List tokens: your own and those of the agents you own, or every token of the workspace for owners and admins',
    query: listQuery(TOKEN_LIST),
    responses: {
      200: {
        description: 'A page of tokens',
        schema: pageSchema(TokenSchema.extend({ expand: z.strictObject({ owner: UserSchema }).optional() }), 'TokenPage'),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listTokens(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/tokens',
    operationId: 'createToken',
    tag: 'Tokens',
    access: 'write',
    summary: 'Create a token for yourself (or, with `user`, for an agent you own); the value is returned only here',
    description:
      '`full` is for owners and admins only (422 otherwise), and needs a Full Access token to create (403 otherwise). A bare `expires_at` date means the end of that day, UTC.',
    body: CreateTokenBody,
    errors: [404],
    responses: {
      201: { description: 'The token and its raw value', schema: z.strictObject({ token: TokenSchema, value: z.string() }).meta({ id: 'CreatedToken' }) },
    },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: await createToken(deps, actor, body), headers: NO_STORE }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/tokens/{id}',
    operationId: 'revokeToken',
    tag: 'Tokens',
    access: 'write',
    summary: 'Revoke a token (your own, one of an agent you own, or any token for owners and admins); it answers 401 at once',
    description: 'A token you may not manage answers 404, as one that does not exist.',
    params: idParam,
    responses: { 204: { description: 'Revoked' } },
    handler: async ({ deps, actor, params }) => {
      await revokeToken(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
