// The automations family: /v1/automations (the runner, runner.ts, is started by `serve`).
import type { ResourceModule } from '../module.js'
import { AUTOMATION_FILTER, RUN_FILTER } from './query.js'
import { automationRoutes } from './routes.js'

export const automations: ResourceModule = {
  name: 'automations',
  routes: automationRoutes,
  filters: { automations: AUTOMATION_FILTER, automation_runs: RUN_FILTER },
  notExported: {
    automations: 'Automations hold secrets and act on the outside world; runs are history of that.',
    automation_secrets: 'Automations hold secrets and act on the outside world; runs are history of that.',
    automation_runs: 'Automations hold secrets and act on the outside world; runs are history of that.',
    automation_run_steps: 'Automations hold secrets and act on the outside world; runs are history of that.',
  },
}
