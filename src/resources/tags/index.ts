// The tags family: /v1/tags.
import type { ResourceModule } from '../module.js'
import { TAG_EVENTS } from './events.js'
import { TAG_FILTER } from './query.js'
import { tagRoutes } from './routes.js'

export const tags: ResourceModule = {
  name: 'tags',
  routes: tagRoutes,
  filters: { tags: TAG_FILTER },
  events: TAG_EVENTS,
  exports: [{ table: 'tags' }, { table: 'card_tags', key: ['card_id', 'tag_id'] }],
}
