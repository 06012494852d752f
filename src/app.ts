// createApp(deps): the request id and log first, the operational routes (health, readiness, metrics), the module list
// mounted as routes, the OpenAPI document and docs, the web app, JSON 404/405, the error handler last.
import express from 'express'
import type { Deps } from './deps.js'
import { emittedEvents } from './events/catalog.js'
import { errorHandler } from './http/error-handler.js'
import { HttpError } from './errors.js'
import { addressRateLimit } from './http/rate-limit.js'
import { requestLog } from './http/request-log.js'
import { Api } from './http/route.js'
import type { Logger } from './log.js'
import { mcpRouter } from './mcp/endpoint.js'
import { webApp } from './http/web.js'
import { healthRouter, type Workers } from './ops/health.js'
import { Metrics, metricsHandler } from './ops/metrics.js'
import { authenticate, authenticateApi, MCP_TOOLS, MODULES } from './resources/index.js'

export interface AppOptions {
  /** Errors and one line per request; without one, errors go to the console and requests are not logged. */
  logger?: Logger
  /** The registry /metrics serves (startServer's, which the outbox scheduler also counts into); else one of the app's own. */
  metrics?: Metrics
  /** The background workers /readyz checks. */
  workers?: Workers
}

export function createApp(deps: Deps, opts: AppOptions = {}): { app: express.Express; api: Api } {
  const log = opts.logger?.error ?? ((msg, err) => console.error(msg, err))
  const metrics = opts.metrics ?? new Metrics(deps)
  const app = express()
  app.disable('x-powered-by')
  app.set('query parser', 'simple')

  app.use(
    requestLog((entry) => {
      metrics.observe(entry)
      opts.logger?.request(entry)
    }),
  )
  // Operational routes: no token, no rate limit.
  app.use(healthRouter(deps, opts.workers, log))
  app.get('/metrics', metricsHandler(deps, metrics))
  // Routes that take no token are limited by address (TASKD_RATE_LIMIT); incoming endpoints have their own limit.
  app.use(['/v1/openapi.json', '/v1/docs', '/v1/redoc', '/v1/note-publications/public', '/v1/forms/public'], addressRateLimit(deps))

  // The API takes a Bearer token or a browser's session cookie; MCP (below) takes tokens only.
  const api = new Api(deps, { authenticate: authenticateApi })
  for (const module of MODULES) for (const route of module.routes) api.add(route)

  // The document and the docs pages load their libraries on first use, so starting the server does not wait for them.
  let document: object | undefined
  app.get('/v1/openapi.json', async (_req, res) => {
    const { buildOpenApi } = await import('./http/openapi.js')
    const receivers = MODULES.flatMap((m) => (m.receivers ?? []).map((r) => r.doc))
    res.json((document ??= buildOpenApi([...api.routes, ...receivers], emittedEvents())))
  })
  let docs: Promise<express.Router> | undefined
  app.use((req, res, next) => {
    if (!/^\/v1\/(docs|redoc)(\/|$)/.test(req.path)) return next()
    docs ??= import('./http/docs.js').then((m) => m.docsRouter())
    docs.then((router) => router(req, res, next), next)
  })
  // OPTIONS: 204 with the path's methods in Allow and no body (Express's own answer is a 200 with the list as text).
  app.options(/.*/, (req, res, next) => {
    const allowed = api.methodsFor(req.path)
    if (allowed.length === 0) return next()
    res.setHeader('Allow', [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '))
    res.status(204).end()
  })
  // Tracked like the API's handlers: shutdown keeps the database open until a request being received is recorded.
  for (const module of MODULES)
    for (const r of module.receivers ?? []) {
      const handler = r.handler(deps)
      app.all(r.path, (req, res, next) => api.track(async () => handler(req, res, next)))
    }
  app.use(mcpRouter(deps, api, { tools: MCP_TOOLS, authenticate, log }))
  app.use(api.router)
  // The web app: its files, and index.html for the GETs asking for text/html that no route above answered.
  app.use(webApp())
  app.use((req, _res, next) => {
    const allowed = api.methodsFor(req.path)
    if (allowed.length > 0) {
      next(
        new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on ${req.path}; use ${allowed.join(', ')}.`, undefined, {
          Allow: allowed.join(', '),
        }),
      )
    } else next(new HttpError(404, 'not_found', `No route ${req.method} ${req.path}.`))
  })
  app.use(errorHandler(log))
  return { app, api }
}
