// The cards family: /v1/cards (tasks), and the filter fields of their files.
import type { ResourceModule } from '../module.js'
import { CARD_EVENTS } from './events.js'
import { CARD_FILTER, FILE_FILTER } from './query.js'
import { cardRoutes } from './routes.js'

export const cards: ResourceModule = { name: 'cards', routes: cardRoutes, filters: { cards: CARD_FILTER, files: FILE_FILTER }, events: CARD_EVENTS }
