// /v1/signing-secrets: write-only keys for signed calls.
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { SIGNING_SECRET_LIST } from './query.js'
import { CreateSigningSecretBody, ReplaceSigningSecretBody, SigningSecretSchema } from './schema.js'
import { createSigningSecret, deleteSigningSecret, getSigningSecretFor, listSigningSecrets, replaceSigningSecret } from './service.js'

const Secret = envelope('signing_secret', SigningSecretSchema)

export const signingSecretRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/signing-secrets',
    operationId: 'listSigningSecrets',
    tag: 'Signing secrets',
    access: 'read',
    summary: 'List the signing secrets of the workspace (names only; a value is never returned)',
    query: listQuery(SIGNING_SECRET_LIST),
    responses: { 200: { description: 'A page of signing secrets', schema: pageSchema(SigningSecretSchema, 'SigningSecretPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listSigningSecrets(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/signing-secrets',
    operationId: 'createSigningSecret',
    tag: 'Signing secrets',
    access: 'write',
    summary: 'Store a signing secret (owners and admins); the value is encrypted and never returned',
    body: CreateSigningSecretBody,
    responses: { 201: { description: 'The signing secret, without its value', schema: Secret } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { signing_secret: await createSigningSecret(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/signing-secrets/{id}',
    operationId: 'getSigningSecret',
    tag: 'Signing secrets',
    access: 'read',
    summary: 'Get a signing secret (without its value)',
    params: idParam,
    responses: { 200: { description: 'The signing secret', schema: Secret } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { signing_secret: await getSigningSecretFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'put',
    path: '/v1/signing-secrets/{id}',
    operationId: 'replaceSigningSecret',
    tag: 'Signing secrets',
    access: 'write',
    summary: 'Replace the value (and optionally the name) of a signing secret (owners and admins); the old value stops at once',
    params: idParam,
    body: ReplaceSigningSecretBody,
    responses: { 200: { description: 'The signing secret', schema: Secret } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { signing_secret: await replaceSigningSecret(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/signing-secrets/{id}',
    operationId: 'deleteSigningSecret',
    tag: 'Signing secrets',
    access: 'write',
    summary: 'Delete a signing secret (owners and admins); 409 while an automation step uses it',
    params: idParam,
    errors: [409],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteSigningSecret(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
