// /v1/agent-kickoffs: handing cards to agents, and the claim long poll of an owner's desktop app.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { CardSchema } from '../cards/schema.js'
import { KICKOFF_LIST } from './query.js'
import { ClaimedKickoffSchema, ClaimKickoffBody, CreateKickoffBody, KickoffListQuery, KickoffSchema } from './schema.js'
import { cancelKickoff, claimKickoff, createKickoff, getKickoffFor, listKickoffs } from './service.js'

const Kickoff = envelope('kickoff', KickoffSchema)
const Expanded = KickoffSchema.extend({ expand: z.strictObject({ card: CardSchema }).optional() })

export const kickoffRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/agent-kickoffs',
    operationId: 'listAgentKickoffs',
    tag: 'Agents',
    access: 'read',
    summary: 'List kickoffs, newest first',
    query: listQuery(KICKOFF_LIST).extend(KickoffListQuery.shape),
    responses: { 200: { description: 'A page of kickoffs', schema: pageSchema(Expanded, 'KickoffPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listKickoffs(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-kickoffs',
    operationId: 'createAgentKickoff',
    tag: 'Agents',
    access: 'write',
    summary: "Hand a card to an agent (a member of the card's board): delivered at once when it can be reached, otherwise queued with retries until it expires",
    body: CreateKickoffBody,
    errors: [404],
    responses: { 201: { description: 'The kickoff', schema: Kickoff } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { kickoff: await createKickoff(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-kickoffs/claim',
    operationId: 'claimAgentKickoff',
    tag: 'Agents',
    access: 'write',
    summary: "Long poll of an agent owner's desktop app (or the agent): take the oldest kickoff to deliver through local_access",
    description: 'Answers 200 with the kickoff (now delivered) and its card, or 204 when none came within `wait_seconds`.',
    body: ClaimKickoffBody,
    errors: [403],
    responses: { 200: { description: 'A kickoff, delivered to the caller', schema: ClaimedKickoffSchema }, 204: { description: 'Nothing to claim' } },
    handler: async ({ deps, actor, body, req }) => {
      const gone = new AbortController()
      req.res?.once('close', () => gone.abort())
      const claimed = await claimKickoff(deps, actor, body.wait_seconds, gone.signal)
      return claimed ? { status: 200, body: claimed } : { status: 204 }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/agent-kickoffs/{id}',
    operationId: 'getAgentKickoff',
    tag: 'Agents',
    access: 'read',
    summary: 'Get a kickoff',
    params: idParam,
    query: listQuery(KICKOFF_LIST).pick({ expand: true }),
    responses: { 200: { description: 'The kickoff', schema: envelope('kickoff', Expanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { kickoff: await getKickoffFor(deps, actor, params.id, query.expand) } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/agent-kickoffs/{id}/cancel',
    operationId: 'cancelAgentKickoff',
    tag: 'Agents',
    access: 'write',
    summary: 'Cancel a kickoff not yet delivered (people only); its run is cancelled',
    params: idParam,
    errors: [403, 409],
    responses: { 200: { description: 'The kickoff', schema: Kickoff } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { kickoff: await cancelKickoff(deps, actor, params.id) } }),
  }),
]
