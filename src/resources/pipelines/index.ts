// The pipelines family: /v1/pipelines (CI runs of git repositories).
import type { ResourceModule } from '../module.js'
import { PIPELINE_EVENTS } from './events.js'
import { PIPELINE_FILTER } from './query.js'
import { pipelineRoutes } from './routes.js'

export const pipelines: ResourceModule = {
  name: 'pipelines',
  routes: pipelineRoutes,
  filters: { pipelines: PIPELINE_FILTER },
  events: PIPELINE_EVENTS,
  // After the git family, whose repositories they belong to.
  exports: [{ table: 'pipelines' }, { table: 'pipeline_cards', key: ['pipeline_id', 'card_id'] }],
}
