// The forms family: /v1/forms, and the public address of each form (its page, its definition and its submissions).
import type { ResourceModule } from '../module.js'
import { FORM_EVENTS } from './events.js'
import { FORM_TOOLS } from './mcp.js'
import { servePublicForm } from './public.js'
import { FORM_FILTER } from './query.js'
import { formRoutes, publicFormDoc, submitFormDoc } from './routes.js'

// One handler answers every method at the public address (GET and HEAD, POST, OPTIONS, 405 for the others); the POST
// entry only documents its submissions, so it passes every request on to the first.
const documentedWithTheFirst = () => (_req: unknown, _res: unknown, next: () => void) => next()

export const forms: ResourceModule = {
  name: 'forms',
  routes: formRoutes,
  filters: { forms: FORM_FILTER },
  events: FORM_EVENTS,
  mcpTools: FORM_TOOLS,
  receivers: [
    { path: '/v1/forms/public/:slug', handler: servePublicForm, doc: publicFormDoc },
    { path: '/v1/forms/public/:slug', handler: documentedWithTheFirst, doc: submitFormDoc },
  ],
  exports: [{ table: 'forms' }],
}
