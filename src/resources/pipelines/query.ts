// Pipelines: filter fields, sort and expand.
import { field, type FilterResource } from '../../filter/index.js'
import type { ListSpec } from '../../query/list-page.js'
import { PIPELINE_STATUSES } from './schema.js'

export const PIPELINE_FILTER: FilterResource = {
  table: 'pipelines',
  fields: {
    id: field.id('id'),
    repository: field.id('repository_id', 'git_repositories'),
    provider_id: field.text('provider_id'),
    name: field.text('name'),
    branch: field.text('branch'),
    commit: field.text('commit_sha'),
    status: field.oneOf('status', PIPELINE_STATUSES),
    url: field.text('url'),
    started_at: field.date('started_at'),
    finished_at: field.date('finished_at'),
    // Card ids only (see CARD_ID_FILTER in the git family).
    cards: { type: 'multi', target: 'git_card_ids', link: { table: 'pipeline_cards', from: 'pipeline_id', to: 'card_id' } },
    created_by: field.id('created_by', 'users'),
    created: field.date('created_at'),
    updated: field.date('updated_at'),
  },
}

export const PIPELINE_LIST: ListSpec = {
  resource: 'pipelines',
  table: 'pipelines',
  defaultSort: '-created',
  expand: ['repository'],
  sort: {
    created: 'pipelines.created_at',
    updated: 'pipelines.updated_at',
    started_at: 'pipelines.started_at',
    finished_at: 'pipelines.finished_at',
    name: 'pipelines.name',
    status: 'pipelines.status',
  },
}
