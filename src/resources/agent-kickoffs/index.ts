import type { ResourceModule } from '../module.js'
import { KICKOFF_FILTER } from './query.js'
import { kickoffRoutes } from './routes.js'
import { KICKOFF_TOOLS } from './mcp.js'

export const agentKickoffs: ResourceModule = {
  name: 'agent-kickoffs',
  routes: kickoffRoutes,
  filters: { agent_kickoffs: KICKOFF_FILTER },
  mcpTools: KICKOFF_TOOLS,
  notExported: {
    agent_kickoffs: 'Agent setup and runs act on the outside world (wake URLs, desktop apps); a restored workspace sets its agents up again.',
    agent_claim_waits: 'Claim long polls waiting right now: state of running processes, gone when they end.',
  },
}
