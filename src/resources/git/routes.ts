// /v1/git: connections to code hosts (with the public hook receiver), repositories, and the branches, commits and pull
// requests that mention cards.
import { z } from 'zod'
import { defineRoute, NO_STORE } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { CONNECTION_LIST, REPOSITORY_LIST, RESOURCE_LIST } from './query.js'
import { RATE_LIMIT } from './receive.js'
import {
  CreateGitConnectionBody,
  CreateGitRepositoryBody,
  GitConnectionSchema,
  GitConnectionWithSecret,
  GitRepositorySchema,
  GitResourceSchema,
  UpdateGitConnectionBody,
  UpdateGitRepositoryBody,
} from './schema.js'
import {
  createConnection,
  createRepository,
  deleteConnection,
  deleteRepository,
  getConnectionFor,
  getRepositoryFor,
  getResourceFor,
  listConnections,
  listRepositories,
  listResources,
  updateConnection,
  updateRepository,
} from './service.js'

const TAG = 'Git'

const MENTIONS =
  'A branch name, a commit message, or a pull (merge) request’s title, body or source branch that mentions a card key links the card: `LCH-12` in any case, as a whole word (no letter or digit right before or after it: `feature/lch-12-login` and `[LCH-12]` mention LCH-12, `XLCH-12`, `LCH-123` and `LCH-12a` do not), also under a board’s earlier key prefix for the cards numbered before it changed; only cards of the repository’s board when it has one, else of any board; cards in the trash are not linked. Links only grow.'

const CONNECTIONS_ABOUT = [
  'A git connection receives the hooks of one GitHub, GitLab or Gitea account or instance at its `hook_url`: set that address and the secret in the host’s webhook settings (content type JSON; events: pushes, pull or merge requests, and workflow runs or pipelines).',
  'Owners and admins manage connections (anyone else 403); the secret is write-only, sealed at rest, generated when not given, and shown once in the response that makes the connection.',
  'An export carries connections without their secrets: after an import, set a new one with PATCH.',
].join(' ')

const Repository = envelope('git_repository', GitRepositorySchema)
const RepositoryExpanded = GitRepositorySchema.extend({ expand: z.strictObject({ board: BoardSchema.nullable() }).optional() })
const ResourceExpanded = GitResourceSchema.extend({ expand: z.strictObject({ repository: GitRepositorySchema }).optional() })

export const gitRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/git/connections',
    operationId: 'listGitConnections',
    tag: TAG,
    access: 'read',
    summary: 'List the git connections (owners and admins)',
    description: CONNECTIONS_ABOUT,
    query: listQuery(CONNECTION_LIST),
    errors: [403],
    responses: { 200: { description: 'A page of connections', schema: pageSchema(GitConnectionSchema, 'GitConnectionPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listConnections(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/git/connections',
    operationId: 'createGitConnection',
    tag: TAG,
    access: 'write',
    summary: 'Connect a GitHub, GitLab or Gitea account or instance (owners and admins); the secret is shown this once',
    description: CONNECTIONS_ABOUT,
    body: CreateGitConnectionBody,
    errors: [403],
    responses: { 201: { description: 'The connection and its secret', schema: GitConnectionWithSecret } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: await createConnection(deps, actor, body), headers: NO_STORE }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/git/connections/{id}',
    operationId: 'getGitConnection',
    tag: TAG,
    access: 'read',
    summary: 'Get a git connection (owners and admins)',
    params: idParam,
    errors: [403],
    responses: { 200: { description: 'The connection', schema: envelope('git_connection', GitConnectionSchema) } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { git_connection: await getConnectionFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/git/connections/{id}',
    operationId: 'updateGitConnection',
    tag: TAG,
    access: 'write',
    summary: 'Rename a git connection or replace its secret (owners and admins)',
    params: idParam,
    body: UpdateGitConnectionBody,
    errors: [403],
    responses: { 200: { description: 'The connection', schema: envelope('git_connection', GitConnectionSchema) } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { git_connection: await updateConnection(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/git/connections/{id}',
    operationId: 'deleteGitConnection',
    tag: TAG,
    access: 'write',
    summary: 'Delete a git connection with its repositories, their resources and pipelines (owners and admins; the cards stay)',
    params: idParam,
    errors: [403],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteConnection(deps, actor, params.id)
      return { status: 204 }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/git/repositories',
    operationId: 'listGitRepositories',
    tag: TAG,
    access: 'read',
    summary: 'List the git repositories the caller sees',
    description:
      'A repository is made by the first hook that comes from it, or by hand. Owners and admins see and manage every one; members of its board see it. Its board is where mentions link (null: any board) and its rules act.',
    query: listQuery(REPOSITORY_LIST).extend({
      board: z.string().optional().meta({ description: 'Only the repositories on this board.' }),
      connection: z.string().optional().meta({ description: 'Only the repositories of this connection.' }),
    }),
    responses: { 200: { description: 'A page of repositories', schema: pageSchema(RepositoryExpanded, 'GitRepositoryPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listRepositories(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/git/repositories',
    operationId: 'createGitRepository',
    tag: TAG,
    access: 'write',
    summary: 'Add a repository of a git connection by hand, with its board and rules (owners and admins)',
    description:
      'Rules run when a pull (merge) request opens or merges, or a pipeline of the repository fails: the linked cards on the repository’s board move to `move_to` and/or are completed (`complete: true`) or re-opened, as the connection (events carry `actor: { id: <connection>, name, kind: "git" }`, and start no event automation).',
    body: CreateGitRepositoryBody,
    errors: [403, 409],
    responses: { 201: { description: 'The repository', schema: Repository } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { git_repository: await createRepository(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/git/repositories/{id}',
    operationId: 'getGitRepository',
    tag: TAG,
    access: 'read',
    summary: 'Get a git repository',
    params: idParam,
    responses: { 200: { description: 'The repository', schema: Repository } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { git_repository: await getRepositoryFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/git/repositories/{id}',
    operationId: 'updateGitRepository',
    tag: TAG,
    access: 'write',
    summary: 'Set a repository’s board and rules (owners and admins)',
    description: 'Each rule’s `move_to` must be a list of the board the repository is left on (422 naming `rules.<n>.move_to`); rules need a board.',
    params: idParam,
    body: UpdateGitRepositoryBody,
    errors: [403],
    responses: { 200: { description: 'The repository', schema: Repository } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { git_repository: await updateRepository(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/git/repositories/{id}',
    operationId: 'deleteGitRepository',
    tag: TAG,
    access: 'write',
    summary: 'Delete a git repository with its resources and pipelines (owners and admins; the cards stay)',
    params: idParam,
    errors: [403],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteRepository(deps, actor, params.id)
      return { status: 204 }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/git/resources',
    operationId: 'listGitResources',
    tag: TAG,
    access: 'read',
    summary: 'List the branches, commits and pull requests that mention cards, newest change first',
    description: `${MENTIONS} A resource is stored once it links a card, and kept up to date by later hooks. Seen by owners and admins, by whoever sees one of its cards, and by the members of its repository’s board; \`cards\` lists the cards the caller sees. Cards show theirs with \`expand=git\`.`,
    query: listQuery(RESOURCE_LIST).extend({
      repository: z.string().optional().meta({ description: 'Only the resources of this repository.' }),
      card: z.string().optional().meta({ description: 'Only the resources linking this card (404 when the caller does not see it).' }),
    }),
    errors: [404],
    responses: { 200: { description: 'A page of git resources', schema: pageSchema(ResourceExpanded, 'GitResourcePage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listResources(deps, actor, query) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/git/resources/{id}',
    operationId: 'getGitResource',
    tag: TAG,
    access: 'read',
    summary: 'Get a git resource',
    params: idParam,
    query: listQuery(RESOURCE_LIST).pick({ expand: true }),
    responses: { 200: { description: 'The git resource', schema: envelope('git_resource', ResourceExpanded) } },
    handler: async ({ deps, actor, params, query }) => ({ status: 200, body: { git_resource: await getResourceFor(deps, actor, params.id, query.expand) } }),
  }),
]

/** The hook receiver as the document shows it (receive.ts answers it, outside the token API). */
export const receiveGitHookDoc = defineRoute({
  method: 'post',
  path: '/v1/git/connections/{id}/hooks',
  operationId: 'receiveGitHook',
  tag: TAG,
  access: 'public',
  summary: 'A git connection’s hook_url: the code host posts its hooks here (no token)',
  description: [
    'Verified by the host’s own scheme over the raw body, in constant time: GitHub `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`, Gitea `X-Gitea-Signature: <hex HMAC-SHA256>`, GitLab `X-Gitlab-Token: <the secret>`; anything else is 401 (the reason goes to the server log only).',
    'The event comes from `X-GitHub-Event`, `X-Gitea-Event` or `X-Gitlab-Event`. Acted on: `push` / `Push Hook` (the branch and its commits), `pull_request` / `Merge Request Hook`, and CI runs: `workflow_run` (GitHub, Gitea) / `Pipeline Hook` (GitLab), which become pipelines; GitHub’s `ping` is answered too. Any other event is 202 with `handled: false` and changes nothing.',
    `${MENTIONS}`,
    `Judged in this order: another method 405, unknown connection 404, more than ${RATE_LIMIT} hooks a minute from one sender 429 (with Retry-After), body past 1 MB 413, signature 401, missing event header or a payload without what its event needs 400, a body neither JSON nor GitHub’s form encoding 415, else 202 once applied, in one transaction with its events.`,
  ].join(' '),
  params: z.object({ id: z.string().meta({ description: 'The git connection (record id).' }) }),
  body: z.record(z.string(), z.unknown()).meta({
    id: 'GitHookBody',
    description: 'The host’s JSON payload as it sends it (GitHub may also send it form-encoded as `payload=<JSON>`); the signature covers these exact bytes.',
    examples: [
      {
        ref: 'refs/heads/feature/LCH-12-login',
        after: '9fceb02d0ae598e95dc970b74767f19372d61af8',
        repository: { full_name: 'octocat/Hello-World', html_url: 'https://github.com/octocat/Hello-World' },
        pusher: { name: 'octocat' },
        commits: [
          {
            id: '9fceb02d0ae598e95dc970b74767f19372d61af8',
            message: 'Fix LCH-12: the login button',
            url: 'https://github.com/octocat/Hello-World/commit/9fceb02d0ae598e95dc970b74767f19372d61af8',
            author: { name: 'Mona Lisa', username: 'monalisa' },
          },
        ],
      },
    ],
  }),
  errors: [400, 401, 404, 405, 413, 415, 429],
  responses: {
    202: {
      description: 'Verified and applied (or ignored)',
      schema: z
        .strictObject({
          accepted: z.literal(true),
          event: z.string().meta({ description: 'The event header’s value.' }),
          handled: z.boolean().meta({ description: 'false for an event taskd does not act on.' }),
        })
        .meta({ id: 'GitHookAccepted' }),
    },
  },
  handler: () => {
    throw new Error('documented only: receive.ts answers /v1/git/connections/{id}/hooks')
  },
})
