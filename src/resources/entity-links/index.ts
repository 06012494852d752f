// The entity links family: /v1/entity-links (a card linked to a card, a note, a milestone or a URL; cards' parents).
import type { ResourceModule } from '../module.js'
import { ENTITY_LINK_EVENTS } from './events.js'
import { ENTITY_LINK_FILTER } from './query.js'
import { entityLinkRoutes } from './routes.js'

export const entityLinks: ResourceModule = {
  name: 'entity-links',
  routes: entityLinkRoutes,
  filters: { entity_links: ENTITY_LINK_FILTER },
  events: ENTITY_LINK_EVENTS,
  exports: [{ table: 'entity_links' }],
}
