// /v1/signing-secrets: write-only keys for signed calls.
import { defineRoute, NO_STORE } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { SIGNING_SECRET_LIST } from './query.js'
import { CreateSigningSecretBody, ReplaceSigningSecretBody, RotatedSigningSecret, RotateSigningSecretBody, SigningSecretSchema } from './schema.js'
import { createSigningSecret, deleteSigningSecret, getSigningSecretFor, listSigningSecrets, replaceSigningSecret, rotateSigningSecret } from './service.js'

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
    method: 'post',
    path: '/v1/signing-secrets/{id}/rotate',
    operationId: 'rotateSigningSecret',
    tag: 'Signing secrets',
    access: 'write',
    summary: 'Rotate a signing secret without downtime (owners and admins): the old value keeps signing beside the new one for the overlap',
    description: [
      'The new value (given, or generated and answered this once as `value`) signs every call from now on. For `overlap_hours` (default 24, 0 to 168)',
      'the old value signs too, in the Standard Webhooks header only: `webhook-signature: v1,<new> v1,<old>`, so a receiver that still holds the old',
      'value verifies the calls until it has the new one. `X-Webhook-Signature-V2` uses the new value at once. The record shows the end of the overlap',
      'in `rotating_until`; after it the old value is forgotten. Rotating again during an overlap ends it: only the value being replaced is kept.',
    ].join(' '),
    params: idParam,
    body: RotateSigningSecretBody,
    responses: { 200: { description: 'The signing secret, and the generated value when none was given', schema: RotatedSigningSecret } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: await rotateSigningSecret(deps, actor, params.id, body), headers: NO_STORE }),
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
