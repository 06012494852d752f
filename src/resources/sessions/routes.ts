// /v1/sessions: signing in from a browser (a session cookie beside the Bearer tokens), the caller's sessions, signing out.
import { defineRoute, NO_STORE } from '../../http/route.js'
import { senderOf } from '../../http/rate-limit.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { csrfFailed } from './authenticate.js'
import { fromAnotherSite, reachedOverHttps, sessionCookieOf, userAgentOf } from './cookie.js'
import { clearedCookie, sessionCookie } from './credentials.js'
import { SESSION_LIST } from './query.js'
import { CreateSessionBody, SessionSchema, SignedInSchema } from './schema.js'
import { currentSession, getSessionFor, listSessions, revokeSession, signIn, signOut } from './service.js'

const Session = envelope('session', SessionSchema)
const COOKIE_HEADER = {
  'Set-Cookie':
    '`taskd_session=<value>; Path=/; Max-Age=<seconds>; HttpOnly; SameSite=Strict`, and `; Secure` when the browser came over HTTPS (a TLS connection, an https:// TASKD_BASE_URL, or X-Forwarded-Proto: https from a proxy in TASKD_TRUST_PROXY)',
}

const SIGN_IN = [
  [
    'Signs a person in from a browser: the answer sets the `taskd_session` cookie (HttpOnly, SameSite=Strict, Secure over HTTPS) and gives the session’s `csrf_token`.',
    'With that cookie the whole API answers as the user, with the most their role allows (owners and admins as with a `full` token, others `write`), except MCP (`/mcp`), which takes tokens only; an `Authorization` header, when present, wins over the cookie.',
    'Every write made with the cookie (POST, PUT, PATCH, DELETE) must send `X-CSRF-Token: <csrf_token>`, else 403 `csrf_failed`; GETs need none.',
    'A session ends after `TASKD_SESSION_IDLE_DAYS` (30) without a request and `TASKD_SESSION_MAX_DAYS` (90) after sign-in, at sign-out, when revoked, and when its user’s password changes (but for the session that changed it).',
    'Each sign-in makes a new session with a new random cookie; a session cookie the browser already held ends.',
  ],
  [
    'With `email` and `password`: a wrong email, a wrong password and an account without a password all answer the same 401 after the same work.',
    'With `link_token`, the last part of a login link (`{base_url}/login/<link_token>`, printed by `taskd user login-link EMAIL`, usable once within `TASKD_LOGIN_LINK_MINUTES`, 15): the web app’s page POSTs it here, so a link preview that only GETs the page uses nothing up; used, expired or unknown, 401.',
  ],
  [
    'Attempts are limited per address (`TASKD_SIGNIN_ATTEMPTS_PER_MINUTE`, 10) and failed passwords per account (`TASKD_SIGNIN_FAILURES_PER_MINUTE`, 5), whatever TASKD_RATE_LIMIT says: 429 with Retry-After.',
    'A request the browser marks as made by another site (`Sec-Fetch-Site: cross-site`) is refused (403 `csrf_failed`); the body must be JSON (415 otherwise), which an HTML form cannot send.',
  ],
]
  .map((p) => p.join(' '))
  .join('\n\n')

export const sessionRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/sessions',
    operationId: 'createSession',
    tag: 'Sessions',
    access: 'public',
    summary: 'Sign in (email and password, or a login link): a session cookie for a browser',
    description: SIGN_IN,
    body: CreateSessionBody,
    errors: [401, 403, 429],
    responses: { 201: { description: 'Signed in: the session, its CSRF token, and the cookie in Set-Cookie', schema: SignedInSchema, headers: COOKIE_HEADER } },
    handler: async ({ deps, body, req }) => {
      if (fromAnotherSite(req)) throw csrfFailed('Signing in from another site is refused.')
      const made = await signIn(deps, body, { address: senderOf(deps, req), userAgent: userAgentOf(req), presented: sessionCookieOf(req) })
      return {
        status: 201,
        body: made.body,
        headers: { ...NO_STORE, 'Set-Cookie': sessionCookie(made.value, made.maxAgeSeconds, reachedOverHttps(deps, req)) },
      }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/sessions',
    operationId: 'listSessions',
    tag: 'Sessions',
    access: 'read',
    summary: 'List your sessions that have not ended (signed-in browsers)',
    description: '`current` marks the one this request came with. Never a cookie value: a session is revoked by its id.',
    query: listQuery(SESSION_LIST),
    responses: { 200: { description: 'A page of your sessions', schema: pageSchema(SessionSchema, 'SessionPage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listSessions(deps, actor, query) }),
  }),
  // Before /v1/sessions/{id}, which would otherwise take `current` for an id.
  defineRoute({
    method: 'get',
    path: '/v1/sessions/current',
    operationId: 'getCurrentSession',
    tag: 'Sessions',
    access: 'read',
    summary: 'The session this request came with, and its CSRF token again (for a page loaded anew)',
    description: '404 for a request made with a token.',
    errors: [404],
    responses: { 200: { description: 'The session and its CSRF token', schema: SignedInSchema } },
    handler: async ({ deps, actor, req }) => ({ status: 200, body: await currentSession(deps, actor, sessionCookieOf(req)), headers: NO_STORE }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/sessions/current',
    operationId: 'deleteCurrentSession',
    tag: 'Sessions',
    access: 'write',
    summary: 'Sign out: the session this request came with ends, and its cookie is cleared',
    description: 'Needs X-CSRF-Token, as every write made with the cookie. 404 for a request made with a token.',
    errors: [404],
    responses: { 204: { description: 'Signed out', headers: { 'Set-Cookie': 'taskd_session=; Max-Age=0 (the browser drops the cookie)' } } },
    handler: async ({ deps, actor, req }) => {
      await signOut(deps, actor)
      return { status: 204, headers: { 'Set-Cookie': clearedCookie(reachedOverHttps(deps, req)) } }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/sessions/{id}',
    operationId: 'getSession',
    tag: 'Sessions',
    access: 'read',
    summary: 'Get one of your sessions',
    description: 'Another user’s session, or one that has ended, answers 404.',
    params: idParam,
    responses: { 200: { description: 'The session', schema: Session } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { session: await getSessionFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/sessions/{id}',
    operationId: 'revokeSession',
    tag: 'Sessions',
    access: 'write',
    summary: 'Revoke one of your sessions: its cookie answers 401 at once',
    description: 'Another user’s session answers 404. Revoking the session this request came with signs out (and clears its cookie).',
    params: idParam,
    responses: { 204: { description: 'Revoked' } },
    handler: async ({ deps, actor, params, req }) => {
      const current = await revokeSession(deps, actor, params.id)
      return { status: 204, headers: current ? { 'Set-Cookie': clearedCookie(reachedOverHttps(deps, req)) } : undefined }
    },
  }),
]
