// Git connections, repositories and resources: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { GitProvider, GitResourceKind } from './schema.js'

export const CONNECTION_FILTER: FilterResource = {
  table: 'git_connections',
  fields: {
    id: field.id('id'),
    provider: field.oneOf('provider', GitProvider.options),
    name: field.text('name'),
    created_by: field.id('created_by', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const CONNECTION_LIST: ListSpec = {
  resource: 'git_connections',
  table: 'git_connections',
  defaultSort: 'name',
  expand: [],
  sort: { name: 'git_connections.name', created: 'git_connections.created_at', updated: 'git_connections.updated_at' },
}

export const REPOSITORY_FILTER: FilterResource = {
  table: 'git_repositories',
  fields: {
    id: field.id('id'),
    // Not a relation: members who see a repository do not see connections.
    connection: field.id('connection_id'),
    full_name: field.text('full_name'),
    url: field.text('url'),
    board: field.id('board_id', 'boards'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const REPOSITORY_LIST: ListSpec = {
  resource: 'git_repositories',
  table: 'git_repositories',
  defaultSort: 'full_name',
  expand: ['board'],
  sort: { full_name: 'git_repositories.full_name', created: 'git_repositories.created_at', updated: 'git_repositories.updated_at' },
}

// A resource or pipeline may link cards of boards the viewer does not see: `cards ~ "<id>"` tests membership by card id
// only, and never follows `cards` into card fields.
export const CARD_ID_FILTER: FilterResource = { table: 'cards', fields: { id: field.id('id') } }

export const RESOURCE_FILTER: FilterResource = {
  table: 'git_resources',
  fields: {
    id: field.id('id'),
    repository: field.id('repository_id', 'git_repositories'),
    kind: field.oneOf('kind', GitResourceKind.options),
    ref: field.text('ref'),
    title: field.text('title'),
    url: field.text('url'),
    state: field.text('state'),
    author: field.text('author'),
    cards: { type: 'multi', target: 'git_card_ids', link: { table: 'git_resource_cards', from: 'resource_id', to: 'card_id' } },
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const RESOURCE_LIST: ListSpec = {
  resource: 'git_resources',
  table: 'git_resources',
  defaultSort: '-updated',
  expand: ['repository'],
  sort: {
    updated: 'git_resources.updated_at',
    created: 'git_resources.created_at',
    ref: 'git_resources.ref',
    title: 'git_resources.title',
    kind: 'git_resources.kind',
  },
}
