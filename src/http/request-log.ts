// The first middleware of the app: the request id (the client's X-Request-Id when it is sane, else a new one), returned
// on every response, and, once the response is done, one log entry and one observation per request, by route pattern.
import { randomUUID } from 'node:crypto'
import type { Request, RequestHandler } from 'express'
import type { Actor } from '../access/roles.js'
import type { RequestEntry } from '../log.js'

/** A client's request id is kept when it is 1–128 characters of [A-Za-z0-9._-]; anything else is replaced. */
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/

/** The label of requests no route took (a 404, a 405): raw paths would make one series per path. */
const UNMATCHED = 'unmatched'

/** Express patterns and their OpenAPI spelling, made once per pattern. */
const patterns = new Map<string, string>()
/** The route pattern that took the request, OpenAPI style (`/v1/cards/{id}`), or UNMATCHED. */
function routeOf(req: Request): string {
  const path: unknown = req.route?.path
  if (typeof path !== 'string') return UNMATCHED
  let pattern = patterns.get(path)
  if (pattern === undefined) patterns.set(path, (pattern = path.replace(/:(\w+)/g, '{$1}')))
  return pattern
}

export function requestLog(onDone: (entry: RequestEntry) => void): RequestHandler {
  return (req, res, next) => {
    const started = performance.now()
    const sent = req.headers['x-request-id']
    const id = typeof sent === 'string' && SANE_ID.test(sent) ? sent : randomUUID()
    res.locals.requestId = id
    res.setHeader('X-Request-Id', id)
    res.once('close', () =>
      onDone({
        method: req.method,
        route: routeOf(req),
        status: res.statusCode,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        request_id: id,
        actor: (res.locals.actor as Actor | undefined)?.user.id ?? null,
        ...(typeof res.locals.logNote === 'string' ? { note: res.locals.logNote } : {}),
      }),
    )
    next()
  }
}
