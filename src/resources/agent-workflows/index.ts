import type { ResourceModule } from '../module.js'
import { WORKFLOW_FILTER } from './query.js'
import { workflowRoutes } from './routes.js'

export const agentWorkflows: ResourceModule = { name: 'agent-workflows', routes: workflowRoutes, filters: { agent_workflows: WORKFLOW_FILTER } }
