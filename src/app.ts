// createApp(deps): middleware order, routers, JSON 404, error handler last.
import express from 'express'
import { actionRoutes } from './api/actions.js'
import { boardRoutes } from './api/boards.js'
import { cardRoutes } from './api/cards.js'
import { listRoutes } from './api/lists.js'
import { tagRoutes } from './api/tags.js'
import { tokenRoutes } from './api/tokens.js'
import { userRoutes } from './api/users.js'
import { webhookRoutes } from './api/webhooks.js'
import type { Deps } from './domain/context.js'
import { errorHandler } from './http/error-handler.js'
import { HttpError } from './http/errors.js'
import { buildOpenApi, docsRouter } from './http/openapi.js'
import { Api } from './http/route.js'

export const BODY_LIMIT = '1mb'

export interface AppOptions { log?: (msg: string, err?: unknown) => void }

export function createApp(deps: Deps, opts: AppOptions = {}): { app: express.Express; api: Api } {
  const log = opts.log ?? ((msg, err) => console.error(msg, err))
  const app = express()
  app.disable('x-powered-by')
  app.set('query parser', 'simple')
  app.use(requireJsonBody)
  app.use(express.json({ limit: BODY_LIMIT, type: () => true }))

  const api = new Api(deps)
  userRoutes(api)
  tokenRoutes(api)
  boardRoutes(api)
  listRoutes(api)
  cardRoutes(api)
  tagRoutes(api)
  actionRoutes(api)
  webhookRoutes(api)

  let document: object | undefined
  app.use(docsRouter(() => (document ??= buildOpenApi(api.routes))))
  app.use(api.router)
  app.use((req, _res, next) => {
    const allowed = api.methodsFor(req.path)
    if (allowed.length > 0) {
      next(new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on ${req.path}; use ${allowed.join(', ')}.`, undefined, { Allow: allowed.join(', ') }))
    } else next(new HttpError(404, 'not_found', `No route ${req.method} ${req.path}.`))
  })
  app.use(errorHandler(log))
  return { app, api }
}

/** A body on a write must be JSON (415 otherwise); an empty body is read as {}. */
function requireJsonBody(req: express.Request, _res: express.Response, next: express.NextFunction): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
  if (hasBody && !req.is('application/json') && !req.is('application/*+json')) {
    next(new HttpError(415, 'unsupported_media_type', 'Send the body as application/json.'))
    return
  }
  next()
}
