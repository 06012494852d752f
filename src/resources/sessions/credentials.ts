// The secrets of sign-in: a session's cookie value and a login link's token (random, 256 bits; only their SHA-256 is
// stored), and the CSRF token of a session, derived from its cookie value (an HMAC), so it is bound to the session and
// needs no storage of its own. node:crypto only: `taskd user login-link` loads it.
import crypto from 'node:crypto'

/** The session cookie's name. */
export const SESSION_COOKIE = 'taskd_session'
/** The header a cookie-authenticated write carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token'

const random = () => crypto.randomBytes(32).toString('base64url')

/** A session cookie's value: `ts_` and 43 base64url characters. */
export const newSessionValue = (): string => `ts_${random()}`
export const SESSION_VALUE = /^ts_[A-Za-z0-9_-]{43}$/

/** A login link's token: `tl_` and 43 base64url characters. */
export const newLinkToken = (): string => `tl_${random()}`
export const LINK_TOKEN = /^tl_[A-Za-z0-9_-]{43}$/

/** The CSRF token of the session whose cookie holds `value`. */
export const csrfTokenOf = (value: string): string => crypto.createHmac('sha256', value).update('taskd csrf token').digest('base64url')

/** Whether `given` (the X-CSRF-Token header) is the session's CSRF token, compared in constant time. */
export function csrfMatches(value: string, given: unknown): boolean {
  if (typeof given !== 'string') return false
  const expected = Buffer.from(csrfTokenOf(value))
  const actual = Buffer.from(given)
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected)
}

/** The Set-Cookie value that gives the browser the session, for `maxAgeSeconds`. */
export const sessionCookie = (value: string, maxAgeSeconds: number, secure: boolean): string =>
  `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`

/** The Set-Cookie value that makes the browser drop the session cookie. */
export const clearedCookie = (secure: boolean): string => `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`
