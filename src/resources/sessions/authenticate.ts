// Who is calling, for the API's routes: a Bearer token (src/resources/tokens/authenticate.ts, handed in by the module
// list), which wins whenever the Authorization header is there, or else the session cookie of a signed-in browser. A
// session acts with the full permission its user's role allows (owners and admins `full`, others `write`), and every
// write it makes (POST, PUT, PATCH, DELETE) must carry the session's CSRF token in X-CSRF-Token (403 csrf_failed
// otherwise, and for any request the browser says another site made). MCP keeps to tokens: src/app.ts gives it the
// token check alone.
import type { Request } from 'express'
import { type Actor, isAdminRole } from '../../access/roles.js'
import type { Deps } from '../../deps.js'
import { HttpError } from '../../errors.js'
import { limitAddress, rateLimitHeaders, rateLimited, SlidingWindows } from '../../http/rate-limit.js'
import { sha256Hex } from '../../ids.js'
import { isoAt } from '../../clock.js'
import { fromAnotherSite, reachedOverHttps, sessionCookieOf } from './cookie.js'
import { clearedCookie, CSRF_HEADER, csrfMatches, SESSION_VALUE, sessionCookie } from './credentials.js'
import { endOf } from './service.js'
import { sessionByHash, touchSession } from './store.js'

/** Methods that change nothing: no CSRF token needed. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
/** A session's last use (and its expiry) is written at most once a minute, with its cookie's Max-Age renewed. */
const TOUCH_INTERVAL_MS = 60_000
/** TASKD_RATE_LIMIT for sessions: requests a minute per session, counted in the process. */
const perSession = new WeakMap<Deps, SlidingWindows>()

/** A 403 for a cookie-authenticated write without its session's CSRF token. */
export const csrfFailed = (message: string) => new HttpError(403, 'csrf_failed', message)

export type Authenticate = (req: Request, deps: Deps) => Promise<Actor>

/** The API's check: the actor of a request's Bearer token (`byToken`), or of its session cookie; 401 without either. */
export const withSessionCookie =
  (byToken: Authenticate): Authenticate =>
  async (req, deps) => {
    const value = sessionCookieOf(req)
    if (req.headers.authorization !== undefined || value === undefined) return byToken(req, deps)
    try {
      return await sessionActor(req, deps, value)
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 401) throw err
      const headers = limitAddress(deps, req) // a refused cookie counts against the sender, as a refused token does
      throw new HttpError(err.status, err.code, err.message, err.details, { ...err.headers, ...headers })
    }
  }

async function sessionActor(req: Request, deps: Deps, value: string): Promise<Actor> {
  const secure = reachedOverHttps(deps, req)
  // The browser is told to drop a cookie that no longer signs anyone in.
  const ended = (message: string) =>
    new HttpError(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer', 'Set-Cookie': clearedCookie(secure) })
  if (!SESSION_VALUE.test(value)) throw ended('The session cookie is not one taskd made: sign in again (POST /v1/sessions).')
  const found = await sessionByHash(deps.db.q, sha256Hex(value))
  const now = deps.clock.now()
  if (!found || Date.parse(found.session.expires_at) <= now || found.user.kind !== 'human')
    throw ended('Your session has ended (signed out, expired or revoked): sign in again (POST /v1/sessions).')
  const { session, user } = found
  if (!SAFE_METHODS.has(req.method)) {
    if (fromAnotherSite(req)) throw csrfFailed('A write made with the session cookie cannot come from another site.')
    if (!csrfMatches(value, req.headers[CSRF_HEADER]))
      throw csrfFailed(
        'A write made with the session cookie needs the session’s CSRF token in the X-CSRF-Token header (csrf_token of POST /v1/sessions or GET /v1/sessions/current).',
      )
  }
  const limit = deps.config.rateLimit
  if (limit > 0) {
    let windows = perSession.get(deps)
    if (!windows) perSession.set(deps, (windows = new SlidingWindows(limit)))
    const taken = windows.take(`session ${session.id}`, now)
    if (!taken.allowed) throw rateLimited(`Too many requests: at most ${limit} a minute per session.`, limit, taken)
    req.res?.set(rateLimitHeaders(limit, taken))
  }
  if (Math.abs(now - Date.parse(session.last_used_at)) >= TOUCH_INTERVAL_MS) {
    const expires = endOf(deps, Date.parse(session.created_at), now)
    await touchSession(deps.db.q, session.id, isoAt(now), isoAt(expires))
    req.res?.append('Set-Cookie', sessionCookie(value, (expires - now) / 1000, secure))
  }
  // An answer to a cookie is that user's alone: no shared cache (a proxy) may keep it for others (a route may say more).
  req.res?.set('Cache-Control', 'private')
  return { user, tokenId: '', permission: isAdminRole(user.role) ? 'full' : 'write', sessionId: session.id }
}
