// The git family: /v1/git (connections to code hosts and their public hook receiver, repositories, and the branches,
// commits and pull requests that mention cards). Pipelines, which CI hooks of these connections report, are a family
// of their own (src/resources/pipelines).
import type { ResourceModule } from '../module.js'
import { GIT_EVENTS } from './events.js'
import { CARD_ID_FILTER, CONNECTION_FILTER, REPOSITORY_FILTER, RESOURCE_FILTER } from './query.js'
import { receiveGitHook } from './receive.js'
import { gitRoutes, receiveGitHookDoc } from './routes.js'

export const git: ResourceModule = {
  name: 'git',
  routes: gitRoutes,
  filters: { git_connections: CONNECTION_FILTER, git_repositories: REPOSITORY_FILTER, git_resources: RESOURCE_FILTER, git_card_ids: CARD_ID_FILTER },
  events: GIT_EVENTS,
  receivers: [{ path: '/v1/git/connections/:id/hooks', handler: receiveGitHook, doc: receiveGitHookDoc }],
  // After the boards and cards they point at; the connections' secrets stay out.
  exports: [
    { table: 'git_connections' },
    { table: 'git_repositories' },
    { table: 'git_resources' },
    { table: 'git_resource_cards', key: ['resource_id', 'card_id'] },
  ],
  notExported: { git_connection_secrets: 'Hook secrets are credentials: after an import, set a new one on each connection.' },
}
