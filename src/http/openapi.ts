// Builds the OpenAPI 3.1 document from the mounted route specs, and serves it with Swagger UI and Redoc from local assets.
import express from 'express'
import { createRequire } from 'node:module'
import path from 'node:path'
import swaggerUi from 'swagger-ui-express'
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import { ErrorSchema } from '../api/schemas.js'
import type { RouteSpec } from './route.js'

const require = createRequire(import.meta.url)
export const VERSION: string = require('../../../package.json').version

function errorsFor(spec: RouteSpec<any, any, any>): Record<number, string> {
  const e: Record<number, string> = {}
  if (spec.access !== 'public') {
    e[400] = 'Bad query parameter, unknown sort field or invalid filter'
    e[401] = 'Missing, malformed, unknown, revoked or expired token'
    e[403] = 'Token permission too low'
    e[404] = 'No such record, or not visible to the token'
    e[429] = 'Rate limited (when TASKD_RATE_LIMIT=on); see Retry-After'
  }
  if (spec.body || spec.query) e[422] = 'A value breaks a rule; details lists each problem'
  if (spec.body) {
    e[413] = 'Body over 1 MB'
    e[415] = 'Body is not application/json'
  }
  if (spec.method !== 'get') e[409] = 'State conflict'
  e[500] = 'Internal error (never carries a stack trace)'
  return e
}

export function buildOpenApi(routes: RouteSpec<any, any, any>[], serverUrl?: string): object {
  const registry = new OpenAPIRegistry()
  const bearer = registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http', scheme: 'bearer', description: 'A personal access token: `Authorization: Bearer tt_...`',
  })
  for (const spec of routes) {
    const responses: Record<string, any> = {}
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = r.schema ? { description: r.description, content: { 'application/json': { schema: r.schema } } } : { description: r.description }
    }
    for (const [status, description] of Object.entries(errorsFor(spec))) {
      if (!responses[status]) responses[status] = { description, content: { 'application/json': { schema: ErrorSchema } } }
    }
    registry.registerPath({
      method: spec.method, path: spec.path, tags: [spec.tag], summary: spec.summary, description: spec.description,
      operationId: `${spec.method}${spec.path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string) => (c ? c.toUpperCase() : ''))}`,
      security: spec.access === 'public' ? [] : [{ [bearer.name]: [] }],
      request: {
        params: spec.params, query: spec.query,
        body: spec.body ? { required: true, content: { 'application/json': { schema: spec.body } } } : undefined,
      },
      responses,
    })
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'taskd API', version: VERSION,
      description: 'Self-hosted task and project management. Every error has the shape `{ "error": { "code", "message", "details"? } }`. Lists answer `{ page, perPage, totalItems, totalPages, items }`.',
    },
    servers: serverUrl ? [{ url: serverUrl }] : undefined,
  })
}

const redocHtml = `<!doctype html>
<html><head><meta charset="utf-8"><title>taskd API (Redoc)</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/v1/openapi.json"></redoc><script src="/v1/redoc/redoc.standalone.js"></script></body></html>`

/** Swagger UI at /v1/docs and Redoc at /v1/redoc, from files in node_modules: no request leaves this host. */
export function docsRouter(getDocument: () => object): express.Router {
  const router = express.Router()
  const selfOnly = (_req: express.Request, res: express.Response, next: express.NextFunction) => {
    res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; font-src 'self' data:")
    next()
  }
  router.get('/v1/openapi.json', (_req, res) => { res.json(getDocument()) })
  router.use('/v1/docs', selfOnly, swaggerUi.serveFiles(undefined, { swaggerOptions: { url: '/v1/openapi.json', validatorUrl: null } }), swaggerUi.setup(undefined, {
    swaggerOptions: { url: '/v1/openapi.json', validatorUrl: null }, customSiteTitle: 'taskd API',
  }))
  const redocBundle = path.join(path.dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js')
  router.get('/v1/redoc/redoc.standalone.js', (_req, res) => res.sendFile(redocBundle))
  router.get('/v1/redoc', selfOnly, (_req, res) => { res.type('html').send(redocHtml) })
  return router
}
