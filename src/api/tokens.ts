// /v1/tokens: personal access tokens. The raw value is returned once, on creation.
import { z } from 'zod'
import { applyFilter } from '../filter/index.js'
import type { TokensTable } from '../db/types.js'
import { isAdmin } from '../domain/context.js'
import { createToken, revokeToken, tokenView } from '../domain/tokens.js'
import { expandQuery, pageQuery, pageSchema, parseExpand, parseSort, runPage } from '../http/paging.js'
import { userView } from '../domain/users.js'
import type { Api } from '../http/route.js'
import { tokensQuery } from '../store/tokens.js'
import { getUsers } from '../store/users.js'
import { dateOrDateTime, idParam, name, UserSchema } from './schemas.js'

const TokenSchema = z.object({
  id: z.string(), name: z.string(), permission: z.enum(['read', 'write', 'full']), prefix: z.string(),
  expires_at: z.string().nullable(), last_used_at: z.string().nullable(), created_at: z.string(),
  owner: z.object({ id: z.string(), name: z.string() }),
}).meta({ id: 'Token' })
const SORT = { created: 'tokens.created_at', name: 'tokens.name', last_used: 'tokens.last_used_at', expires: 'tokens.expires_at' }

export function tokenRoutes(api: Api): void {
  api.add({
    method: 'get', path: '/v1/tokens', tag: 'Tokens', access: 'read',
    summary: 'List tokens: your own, or every token of the workspace for owners and admins',
    query: z.object({ ...pageQuery, ...expandQuery(['owner']) }),
    responses: { 200: { description: 'A page of tokens', schema: pageSchema(TokenSchema.extend({ expand: z.object({ owner: UserSchema }).optional() }), 'TokenPage') } },
    handler: ({ deps, actor, query }) => {
      const expand = parseExpand(query.expand, ['owner'])
      const base = applyFilter(tokensQuery(isAdmin(actor) ? undefined : actor.user.id), 'tokens', query.filter)
      const order = parseSort(query.sort ?? '-created', SORT)
      const page = runPage(deps.sql, base, 'tokens', { page: query.page, perPage: query.per_page, order }, (rows: TokensTable[]) => {
        const owners = new Map(getUsers(deps.sql, rows.map((r) => r.user_id)).map((u) => [u.id, u]))
        return rows.map((r) => {
          const owner = owners.get(r.user_id)!
          const view = tokenView(r, { id: owner.id, name: owner.name })
          return expand.has('owner') ? { ...view, expand: { owner: userView(owner) } } : view
        })
      })
      return { status: 200, body: page }
    },
  })
  api.add({
    method: 'post', path: '/v1/tokens', tag: 'Tokens', access: 'write',
    summary: 'Create a token for yourself; the value is returned only here',
    description: '`full` is for owners and admins only (422 otherwise), and needs a Full Access token to create (403 otherwise). A bare `expires_at` date means the end of that day, UTC.',
    body: z.object({ name, permission: z.enum(['read', 'write', 'full']).default('write'), expires_at: dateOrDateTime.nullable().optional() }).strict(),
    responses: { 201: { description: 'The token and its raw value', schema: z.object({ token: TokenSchema, value: z.string() }) } },
    handler: ({ deps, actor, body }) => ({ status: 201, body: createToken(deps, actor, body) }),
  })
  api.add({
    method: 'delete', path: '/v1/tokens/{id}', tag: 'Tokens', access: 'write',
    summary: 'Revoke a token (its creator, or any token for owners and admins); it answers 401 at once',
    params: idParam,
    responses: { 204: { description: 'Revoked' } },
    handler: ({ deps, actor, params }) => {
      revokeToken(deps, actor, params.id)
      return { status: 204 }
    },
  })
}
