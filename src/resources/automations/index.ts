// The automations family: /v1/automations (the runner, runner.ts, is started by `serve`).
import type { ResourceModule } from '../module.js'
import { AUTOMATION_FILTER, RUN_FILTER } from './query.js'
import { automationRoutes } from './routes.js'

export const automations: ResourceModule = {
  name: 'automations',
  routes: automationRoutes,
  filters: { automations: AUTOMATION_FILTER, automation_runs: RUN_FILTER },
}
