// One route definition drives both the Express handler and its OpenAPI entry, so the document cannot drift.
import express, { type Request, type Response } from 'express'
import { z, type ZodObject, type ZodType } from 'zod'
import type { Actor, Deps, Permission } from '../domain/context.js'
import { authenticate } from './auth.js'
import { badRequest, forbidden, HttpError, unprocessable } from './errors.js'
import { RateLimiter } from './rate-limit.js'

export type Access = 'public' | Permission

export interface Reply { status: number; body?: unknown; headers?: Record<string, string> }

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
  tag: string
  summary: string
  description?: string
  /** Minimum token permission; `public` routes take no token. */
  access: Access
  params?: P
  query?: Q
  body?: B
  responses: Record<number, { description: string; schema?: ZodType }>
  handler: (ctx: RouteContext<z.infer<P>, z.infer<Q>, z.infer<B>>) => Reply | Promise<Reply>
}

const RANK: Record<Permission, number> = { read: 0, write: 1, full: 2 }

export function zodDetails(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }))
}

/** Collects route specs and mounts them on an Express router. */
export class Api {
  readonly routes: RouteSpec<any, any, any>[] = []
  readonly router = express.Router()
  private readonly limiter: RateLimiter | undefined

  constructor(private readonly deps: Deps) {
    this.limiter = deps.config.rateLimit ? new RateLimiter(deps.clock) : undefined
  }

  /** Methods some route answers on this path (for 405 and its Allow header). */
  methodsFor(path: string): string[] {
    const matches = this.routes.filter((r) => new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}/?$`).test(path))
    return [...new Set(matches.map((r) => r.method.toUpperCase()))]
  }

  add<P extends ZodObject, Q extends ZodObject, B extends ZodType>(spec: RouteSpec<P, Q, B>): void {
    this.routes.push(spec as RouteSpec<any, any, any>)
    const expressPath = spec.path.replace(/\{(\w+)\}/g, ':$1')
    this.router[spec.method](expressPath, async (req: Request, res: Response) => {
      const actor = spec.access === 'public' ? (undefined as unknown as Actor) : authenticate(req, this.deps)
      if (spec.access !== 'public') {
        this.limiter?.take(actor.tokenId)
        if (actor.permission === 'read' && spec.method !== 'get') {
          throw forbidden('This token is read only.')
        }
        if (RANK[actor.permission] < RANK[spec.access]) {
          throw forbidden(`This route needs a token with ${spec.access} permission.`)
        }
      }
      const params = parsePart(spec.params, req.params, 'path parameter')
      const query = parsePart(spec.query, req.query, 'query parameter')
      let body: unknown = undefined
      if (spec.body) {
        const parsed = spec.body.safeParse(req.body ?? {})
        if (!parsed.success) throw unprocessable('The request body is not valid.', zodDetails(parsed.error))
        body = parsed.data
      }
      const reply = await spec.handler({ actor, params, query, body, deps: this.deps, req } as RouteContext<any, any, any>)
      for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v)
      if (reply.body === undefined) res.status(reply.status).end()
      else res.status(reply.status).json(reply.body)
    })
  }
}

function parsePart(schema: ZodObject | undefined, value: unknown, what: string): unknown {
  if (!schema) return {}
  const parsed = schema.safeParse(value ?? {})
  if (!parsed.success) throw badRequest(`Invalid ${what}.`, zodDetails(parsed.error))
  return parsed.data
}

export { HttpError }
