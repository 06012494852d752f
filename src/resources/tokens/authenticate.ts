// Bearer token authentication: hash lookup, expiry, the request rate limit (TASKD_RATE_LIMIT), and a throttled last_used_at.
import type { Request } from 'express'
import { type Actor, isAdminRole } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Deps } from '../../deps.js'
import { HttpError, unauthorized } from '../../errors.js'
import { limitAddress, rateLimitHeaders, rateLimited, WINDOW_MS } from '../../http/rate-limit.js'
import { sha256Hex } from '../../ids.js'
import { countTokenRequest, findTokenByHash, touchToken } from './store.js'

const TOKEN_SHAPE = /^tt_[0-9A-Za-z]{40,200}$/
/** last_used_at is written at most once a minute per token, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000
/** Per database (a process may serve more than one, as tests do) and token: when last_used_at was last written. */
const lastTouched = new Map<string, number>()

/**
 * The actor of a request's bearer token, or 401. With TASKD_RATE_LIMIT on, a token's requests are counted per token
 * (RateLimit-* headers on the response, 429 past the limit) and a refused token counts against the sender's address.
 */
export async function authenticate(req: Request, deps: Deps): Promise<Actor> {
  try {
    return await actorOf(req, deps)
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 401) throw err
    const headers = limitAddress(deps, req) // a 429 once the address has had its share
    throw new HttpError(err.status, err.code, err.message, err.details, { ...err.headers, ...headers })
  }
}

async function actorOf(req: Request, deps: Deps): Promise<Actor> {
  const header = req.headers.authorization
  if (!header) throw unauthorized('The Authorization header is missing; send "Authorization: Bearer tt_...".')
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match) throw unauthorized('The Authorization header must be the word Bearer, a space and the token: "Bearer tt_...".')
  // A placeholder pasted as it stands, or a token cut short: say what is wrong with the token, not with the header.
  if (!TOKEN_SHAPE.test(match[1]))
    throw unauthorized(
      'The token is unknown: a taskd token is tt_ followed by at least 40 letters and digits, and this one is not (cut short, or a placeholder?).',
    )
  const found = await findTokenByHash(deps.db.q, sha256Hex(match[1]))
  if (!found) throw unauthorized('The token is unknown or has been revoked: make a new one (POST /v1/tokens, or taskd token create).')
  const now = deps.clock.now()
  if (found.token.expires_at !== null && Date.parse(found.token.expires_at) <= now) throw unauthorized('The token has expired.')
  const limit = deps.config.rateLimit
  if (limit > 0) {
    // A fixed one-minute window per token, counted in the database for all processes.
    const w = await countTokenRequest(deps.db.q, found.token.id, now, WINDOW_MS)
    const taken = {
      allowed: w.rate_count <= limit,
      remaining: limit - w.rate_count,
      reset: Math.max(1, Math.ceil((w.rate_window_start + WINDOW_MS - now) / 1000)),
    }
    if (!taken.allowed) throw rateLimited(`Too many requests: at most ${limit} a minute per token.`, limit, taken)
    req.res?.set(rateLimitHeaders(limit, taken))
  }
  const key = `${deps.config.databaseUrl ?? deps.config.db}\u0000${found.token.id}`
  const last = lastTouched.get(key) ?? 0
  if (now - last >= TOUCH_INTERVAL_MS || now < last) {
    lastTouched.set(key, now)
    await touchToken(deps.db.q, found.token.id, isoAt(now))
  }
  // Full Access needs an owner or admin now, whatever the token row says (a demotion also rewrites the row).
  const permission = found.token.permission === 'full' && !isAdminRole(found.user.role) ? 'write' : found.token.permission
  return { user: found.user, tokenId: found.token.id, permission }
}
