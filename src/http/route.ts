// One route definition drives both the Express handler and its OpenAPI entry, so the document cannot drift.
import express, { type NextFunction, type Request, type Response } from 'express'
import type { Writable } from 'node:stream'
import type { ZodObject, ZodType, z } from 'zod'
import { type Actor, PERMISSION_RANK, type Permission } from '../access/roles.js'
import type { Deps } from '../deps.js'
import { badRequest, forbidden, HttpError, invalidBody, notFound, unprocessable, WITH_INPUT, zodDetails } from '../errors.js'
import { jsonTooDeep, MAX_JSON_DEPTH } from '../json-depth.js'

export type Access = 'public' | Permission

export interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
  /**
   * Writes the answer's body itself (a file's bytes, as they are read) after the status and headers, ending `out`;
   * on a failure it destroys `out` (the client sees a cut connection) and never throws.
   */
  stream?: (out: Writable) => Promise<void>
}

export interface RouteContext<P, Q, B> {
  actor: Actor
  params: P
  query: Q
  body: B
  deps: Deps
  req: Request
}

export interface RouteSpec<P extends ZodObject = ZodObject, Q extends ZodObject = ZodObject, B extends ZodType = ZodType> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  /** OpenAPI-style path, e.g. `/v1/cards/{id}`. */
  path: string
  /** Stable name of the operation (`listCards`, `createCard`): the OpenAPI operationId, and later the MCP tool and n8n operation. */
  operationId: string
  tag: string
  summary: string
  description?: string
  /** Minimum token permission; `public` routes take no token. */
  access: Access
  params?: P
  query?: Q
  body?: B
  /**
   * A multipart/form-data body, as the document shows it (the handler reads the request stream itself: nothing is
   * parsed before it, and `body` stays unset).
   */
  multipart?: ZodType
  /** Each status with its schema; `content` is its media type when it is not JSON (a file's bytes). */
  responses: Record<number, { description: string; schema?: ZodType; content?: string; headers?: Record<string, string> }>
  /** Error statuses the handler itself can answer beyond those its shape implies (see errorStatuses in openapi.ts), e.g. 409. */
  errors?: readonly number[]
  handler: (ctx: RouteContext<z.infer<P>, z.infer<Q>, z.infer<B>>) => Reply | Promise<Reply>
}

export type AnyRoute = RouteSpec<any, any, any>

/** Keeps each route's handler typed by its own schemas inside a family's route list. */
export const defineRoute = <P extends ZodObject, Q extends ZodObject, B extends ZodType>(spec: RouteSpec<P, Q, B>): AnyRoute => spec as AnyRoute

/** For replies that carry a token value or a generated secret: no cache (browser, proxy) may keep them. */
export const NO_STORE = { 'Cache-Control': 'no-store' } as const

export interface ApiOptions {
  /** Resolves the bearer token of a request to its actor, or throws 401. */
  authenticate: (req: Request, deps: Deps) => Promise<Actor>
}

/** Collects route specs and mounts them on an Express router. */
export class Api {
  readonly routes: AnyRoute[] = []
  readonly router = express.Router()
  private readonly matchers: { re: RegExp; method: string }[] = []

  constructor(
    private readonly deps: Deps,
    private readonly opts: ApiOptions,
  ) {}

  /** Methods some route answers on this path (for 405 and its Allow header). */
  methodsFor(path: string): string[] {
    return [...new Set(this.matchers.filter((m) => m.re.test(path)).map((m) => m.method))]
  }

  add(spec: AnyRoute): void {
    this.routes.push(spec)
    this.matchers.push({ re: new RegExp(`^${spec.path.replace(/\{\w+\}/g, '[^/]+')}/?$`), method: spec.method.toUpperCase() })
    const expressPath = spec.path.replace(/\{(\w+)\}/g, ':$1')
    // The token is checked before a body is read; routes without a body never read one.
    const authorize = async (req: Request, res: Response, next: NextFunction) => {
      res.locals.actor = spec.access === 'public' ? undefined : await this.track(() => this.authorize(req, res, spec))
      next()
    }
    const bodyParsers = spec.body ? [requireJsonBody, jsonBody] : []
    this.router[spec.method](expressPath, authorize, ...bodyParsers, (req: Request, res: Response) => this.track(() => this.handle(spec, req, res)))
  }

  /** Handlers running now: shutdown waits for them before it closes the database (their client may have gone already). */
  private running = 0
  private readonly idleWaiters: (() => void)[] = []

  /** Runs fn counted as a running handler (the MCP endpoint's requests are counted too). */
  async track<T>(fn: () => Promise<T>): Promise<T> {
    this.running++
    try {
      return await fn()
    } finally {
      if (--this.running === 0) for (const resolve of this.idleWaiters.splice(0)) resolve()
    }
  }

  /** Resolves once no request handler runs, or after `ms`. */
  idle(ms: number): Promise<void> {
    if (this.running === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.idleWaiters.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }

  private async handle(spec: AnyRoute, req: Request, res: Response): Promise<void> {
    const reply = await runRoute(spec, this.deps, res.locals.actor as Actor, req, { params: req.params, query: req.query, body: req.body })
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v)
    if (reply.stream) await reply.stream(res.status(reply.status))
    else if (reply.body === undefined) res.status(reply.status).end()
    else res.status(reply.status).json(reply.body)
  }

  private async authorize(req: Request, res: Response, spec: AnyRoute): Promise<Actor> {
    const actor = await this.opts.authenticate(req, this.deps)
    checkAccess(actor, spec)
    // The request id (set by the request log) goes with the actor to the services, which record it in the audit log.
    return { ...actor, requestId: res.locals.requestId as string | undefined }
  }
}

/** The token's permission against the route's: a read token writes nothing, and a route may ask for more. */
export function checkAccess(actor: Actor, spec: AnyRoute): void {
  if (actor.permission === 'read' && spec.method !== 'get') throw forbidden('This token is read only.')
  if (PERMISSION_RANK[actor.permission] < PERMISSION_RANK[spec.access as Permission]) {
    throw forbidden(`This route needs a token with ${spec.access} permission.`)
  }
}

/**
 * A route's input parsed by its own schemas and its handler run: what the HTTP edge does after the token check, and
 * what an MCP tool does with its arguments, so both give the same answers and the same errors.
 */
export async function runRoute(
  spec: AnyRoute,
  deps: Deps,
  actor: Actor,
  req: Request,
  raw: { params?: unknown; query?: unknown; body?: unknown },
): Promise<Reply> {
  // U+0000 cannot be stored in PostgreSQL's text (SQLite would keep it): refused the same way on both.
  if (nulAt(raw.params, '')) throw notFound()
  const inQuery = nulAt(raw.query, '')
  if (inQuery) throw badRequest(`The query parameter ${inQuery} must not contain a NUL character.`)
  refuseUnknownQuery(spec.query, raw.query)
  const params = parsePart(spec.params, raw.params, 'path parameter')
  const query = parsePart(spec.query, raw.query, 'query parameter')
  let body: unknown = undefined
  const inBody = spec.body && nulAt(raw.body, '')
  if (inBody) throw unprocessable('The request body is not valid.', [{ path: inBody, message: 'Must not contain a NUL character.' }])
  if (spec.body) {
    const parsed = spec.body.safeParse(raw.body ?? {}, WITH_INPUT)
    if (!parsed.success) throw invalidBody(zodDetails(parsed.error))
    body = parsed.data
  }
  return spec.handler({ actor, params, query, body, deps, req })
}

export const BODY_LIMIT = '1mb'
/**
 * Reads a JSON body of at most BODY_LIMIT: a body nested deeper than MAX_JSON_DEPTH is refused (400) before it is
 * parsed, so nothing that walks the value later can overflow the stack. The MCP endpoint reads its bodies with it too.
 */
export const jsonBody = express.json({
  limit: BODY_LIMIT,
  type: () => true,
  verify: (_req, _res, buf) => {
    if (jsonTooDeep(buf)) throw badRequest(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`)
  },
})

/** A body must be JSON (415 otherwise); an empty body is read as {}. */
function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
  if (hasBody && !req.is('application/json') && !req.is('application/*+json')) {
    next(new HttpError(415, 'unsupported_media_type', 'Send the body as application/json.'))
    return
  }
  next()
}

/** The path (a.b.0) of the first string in value that holds U+0000, or undefined; keys are checked too. */
function nulAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(value)' : undefined
  if (value === null || typeof value !== 'object') return undefined
  for (const [k, v] of Object.entries(value)) {
    const at = path ? `${path}.${k}` : k
    if (k.includes('\u0000')) return at
    const found = nulAt(v, at)
    if (found) return found
  }
  return undefined
}

/**
 * A query parameter the route does not define is refused, never ignored: a misspelt filter (`filtr=`) would otherwise
 * answer everything as if it had matched. One check for every route, from the route's own query schema.
 */
function refuseUnknownQuery(schema: ZodObject | undefined, query: unknown): void {
  if (query === null || typeof query !== 'object') return
  const known = Object.keys(schema?.shape ?? {})
  const unknown = Object.keys(query).filter((k) => !Object.hasOwn(schema?.shape ?? {}, k))
  if (unknown.length === 0) return
  const takes = known.length ? `This route takes ${known.join(', ')}.` : 'This route takes no query parameters.'
  throw badRequest(
    `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}. ${takes}`,
    unknown.map((k) => ({ path: k, message: 'Unknown query parameter.' })),
  )
}

function parsePart(schema: ZodObject | undefined, value: unknown, what: string): unknown {
  if (!schema) return {}
  const parsed = schema.safeParse(value ?? {}, WITH_INPUT)
  if (!parsed.success) {
    const details = zodDetails(parsed.error)
    throw badRequest(`Invalid ${what}: ${details[0]?.message ?? 'not valid.'}`, details)
  }
  return parsed.data
}

export { HttpError }
