import type { ResourceModule } from '../module.js'
import { KICKOFF_FILTER } from './query.js'
import { kickoffRoutes } from './routes.js'

export const agentKickoffs: ResourceModule = { name: 'agent-kickoffs', routes: kickoffRoutes, filters: { agent_kickoffs: KICKOFF_FILTER } }
