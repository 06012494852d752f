import type { ResourceModule } from '../module.js'
import { WORKFLOW_FILTER } from './query.js'
import { workflowRoutes } from './routes.js'

export const agentWorkflows: ResourceModule = {
  name: 'agent-workflows',
  routes: workflowRoutes,
  filters: { agent_workflows: WORKFLOW_FILTER },
  notExported: {
    agent_profiles: 'Agent setup and runs act on the outside world (wake URLs, desktop apps); a restored workspace sets its agents up again.',
    agent_workflows: 'Agent setup and runs act on the outside world (wake URLs, desktop apps); a restored workspace sets its agents up again.',
    agent_workflow_steps: 'Agent setup and runs act on the outside world (wake URLs, desktop apps); a restored workspace sets its agents up again.',
  },
}
