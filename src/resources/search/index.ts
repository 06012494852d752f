// The search family: /v1/search.
import type { ResourceModule } from '../module.js'
import { searchRoutes } from './routes.js'

export const searchModule: ResourceModule = { name: 'search', routes: searchRoutes }
