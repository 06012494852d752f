// The actions family: /v1/actions (bulk card operations, workspace export).
import type { ResourceModule } from '../module.js'
import { actionRoutes } from './routes.js'

export const actions: ResourceModule = { name: 'actions', routes: actionRoutes }
