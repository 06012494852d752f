// Swagger UI at /v1/docs and Redoc at /v1/redoc, from files in node_modules: no request leaves this host.
// Loaded on the first request for them, so the server starts without reading the docs bundles.
import express from 'express'
import { createRequire } from 'node:module'
import path from 'node:path'
import swaggerUi from 'swagger-ui-express'

const require = createRequire(import.meta.url)

const redocHtml = `<!doctype html>
<html><head><meta charset="utf-8"><title>taskd API (Redoc)</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/v1/openapi.json"></redoc><script src="/v1/redoc/redoc.standalone.js"></script></body></html>`

export function docsRouter(): express.Router {
  const router = express.Router()
  const selfOnly = (_req: express.Request, res: express.Response, next: express.NextFunction) => {
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; font-src 'self' data:",
    )
    next()
  }
  const options = { swaggerOptions: { url: '/v1/openapi.json', validatorUrl: null } }
  router.use('/v1/docs', selfOnly, swaggerUi.serveFiles(undefined, options), swaggerUi.setup(undefined, { ...options, customSiteTitle: 'taskd API' }))
  const redocBundle = path.join(path.dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js')
  router.get('/v1/redoc/redoc.standalone.js', (_req, res) => res.sendFile(redocBundle))
  router.get('/v1/redoc', selfOnly, (_req, res) => {
    res.type('html').send(redocHtml)
  })
  return router
}
