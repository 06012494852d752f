// Swagger UI at /v1/docs and Redoc at /v1/redoc, their scripts and styles taken from the swagger-ui-dist and redoc
// packages (SEA assets in the single binary): no request leaves this host.
// Loaded on the first request for them, so the server starts without reading the docs bundles.
import express from 'express'
import path from 'node:path'
import swaggerUi from 'swagger-ui-express'
import { asset } from '../assets.js'

const redocHtml = `<!doctype html>
<html><head><meta charset="utf-8"><title>taskd API (Redoc)</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/v1/openapi.json"></redoc><script src="/v1/redoc/redoc.standalone.js"></script></body></html>`

/** Every file the two pages load, by the URL it is served at; scripts/build-binary.mjs embeds the same files. */
export const DOCS_FILES: Record<string, string> = {
  ...Object.fromEntries(
    ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png', 'favicon-16x16.png'].map((f) => [
      `/v1/docs/${f}`,
      `node_modules/swagger-ui-dist/${f}`,
    ]),
  ),
  '/v1/redoc/redoc.standalone.js': 'node_modules/redoc/bundles/redoc.standalone.js',
}

const splitUrl = (url: string): [string, string] => {
  const at = url.indexOf('?')
  return at < 0 ? [url, ''] : [url.slice(0, at), url.slice(at)]
}

export function docsRouter(): express.Router {
  const router = express.Router()
  const selfOnly = (_req: express.Request, res: express.Response, next: express.NextFunction) => {
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; font-src 'self' data:",
    )
    next()
  }
  for (const [url, name] of Object.entries(DOCS_FILES)) {
    const body = asset(name)
    router.get(url, (_req, res) => {
      res.type(path.extname(name)).send(body)
    })
  }
  const options = { swaggerOptions: { url: '/v1/openapi.json', validatorUrl: null } }
  // serveFiles() is [the swagger-ui-init.js handler, a static handler for swagger-ui-dist's folder]: the files come from above.
  const [swaggerInit] = swaggerUi.serveFiles(undefined, options)
  // The page names its files relatively (./swagger-ui.css): under /v1/docs, without the slash, they would resolve one level
  // up and the page would stay blank, so that address moves to the slash form (relative Location: a path prefix added by a
  // proxy is kept).
  router.get('/v1/docs', (req, res, next) => {
    const [pathname, search] = splitUrl(req.originalUrl)
    if (pathname.endsWith('/')) return next()
    res.redirect(301, `docs/${search}`)
  })
  router.use('/v1/docs', selfOnly, swaggerInit, swaggerUi.setup(undefined, { ...options, customSiteTitle: 'taskd API' }))
  router.get('/v1/redoc', selfOnly, (_req, res) => {
    res.type('html').send(redocHtml)
  })
  return router
}
