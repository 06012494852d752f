import type { ResourceModule } from '../module.js'
import { QUESTION_EVENTS } from './events.js'
import { QUESTION_FILTER } from './query.js'
import { questionRoutes } from './routes.js'

export const agentQuestions: ResourceModule = {
  name: 'agent-questions',
  routes: questionRoutes,
  filters: { agent_questions: QUESTION_FILTER },
  events: QUESTION_EVENTS,
  notExported: { agent_questions: 'Agent setup and runs act on the outside world (wake URLs, desktop apps); a restored workspace sets its agents up again.' },
}
