// The users family: /v1/users.
import type { ResourceModule } from '../module.js'
import { USER_FILTER } from './query.js'
import { userRoutes } from './routes.js'

export const users: ResourceModule = { name: 'users', routes: userRoutes, filters: { users: USER_FILTER } }
