// What sign-in reads from a request: the session cookie, whether the browser reached taskd over HTTPS (for the
// cookie's Secure attribute), and whether the request came from another site.
import type { Request } from 'express'
import type { TLSSocket } from 'node:tls'
import type { Deps } from '../../deps.js'
import { viaTrustedProxy } from '../../http/rate-limit.js'
import { SESSION_COOKIE } from './credentials.js'

/** The value of the session cookie the request carries, if any (the first, when a browser sends more than one). */
export function sessionCookieOf(req: Request): string | undefined {
  const header = req.headers.cookie
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim()
  }
  return undefined
}

/**
 * Whether the browser reached taskd over HTTPS, so the cookie is marked Secure: a TLS connection, a public address
 * (TASKD_BASE_URL) that is https://, or a trusted proxy (TASKD_TRUST_PROXY) saying so in X-Forwarded-Proto (the first
 * value: the client's side) or Forwarded's proto. A client's own such header, not through a trusted proxy, is ignored.
 */
export function reachedOverHttps(deps: Deps, req: Request): boolean {
  if ((req.socket as TLSSocket).encrypted) return true
  if (deps.config.baseUrl?.toLowerCase().startsWith('https://')) return true
  if (!viaTrustedProxy(deps, req)) return false
  const forwarded = req.headers['x-forwarded-proto']
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase()
  if (proto !== undefined) return proto === 'https'
  return /(?:^|[;,\s])proto="?https"?(?:$|[;,\s])/i.test(req.headers.forwarded?.split(',')[0] ?? '')
}

/** A request another site made (the browser's Sec-Fetch-Site): never a sign-in or a cookie-authenticated write. */
export const fromAnotherSite = (req: Request): boolean => req.headers['sec-fetch-site'] === 'cross-site'

/** The browser's name for itself, cut to 256 characters. */
export const userAgentOf = (req: Request): string | null => req.headers['user-agent']?.slice(0, 256) || null
