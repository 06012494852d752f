// Who sent a request (honouring TASKD_TRUST_PROXY), sliding one-minute windows of requests per key, and the general API
// rate limit by address (TASKD_RATE_LIMIT) for requests without a valid token, with the RateLimit-* headers of the IETF
// draft (as express-rate-limit's draft-6 mode sends them). The per-token limit is counted in the database (tokens/authenticate.ts).
import type { Request, RequestHandler } from 'express'
import ipaddr from 'ipaddr.js'
import type { Deps } from '../deps.js'
import { HttpError } from '../errors.js'

/** An address as logged and counted: an IPv4 address without its IPv6 mapping; undefined when it is no address. */
function address(text: string | undefined): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    return text ? ipaddr.process(text.trim()) : undefined
  } catch {
    return undefined
  }
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]
/** The trusted ranges of a config, parsed once. */
const parsedRanges = new WeakMap<readonly string[], Range[]>()
function within(addr: ipaddr.IPv4 | ipaddr.IPv6, ranges: readonly string[]): boolean {
  let parsed = parsedRanges.get(ranges)
  if (!parsed) parsedRanges.set(ranges, (parsed = ranges.map((r) => ipaddr.parseCIDR(r))))
  return parsed.some(([net, bits]) => net.kind() === addr.kind() && addr.match([net, bits] as never))
}

/**
 * The sender: the connection's address; behind a trusted proxy (TASKD_TRUST_PROXY), the last address in
 * X-Forwarded-For that is not itself a trusted proxy (read from the right, so a client cannot forge its way in).
 */
export function senderOf(deps: Deps, req: Request): string {
  const peer = address(req.socket.remoteAddress)
  if (!peer) return req.socket.remoteAddress ?? ''
  const trusted = deps.config.trustProxy
  if (trusted.length === 0 || !within(peer, trusted)) return peer.toString()
  const header = req.headers['x-forwarded-for']
  const chain = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')
  let sender = peer
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = address(chain[i])
    if (!hop) break
    sender = hop
    if (!within(hop, trusted)) break
  }
  return sender.toString()
}

/** Whether the connection comes from a trusted proxy (TASKD_TRUST_PROXY), whose forwarding headers may be believed. */
export function viaTrustedProxy(deps: Deps, req: Request): boolean {
  const peer = address(req.socket.remoteAddress)
  return peer !== undefined && deps.config.trustProxy.length > 0 && within(peer, deps.config.trustProxy)
}

/** Whether a host is this machine: localhost, 127.0.0.0/8 or ::1 (also in brackets, as a URL writes it). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || address(host.replace(/^\[(.*)\]$/, '$1'))?.range() === 'loopback'
}

/** Whether the connection itself (not X-Forwarded-For) comes from this machine. */
export const fromLoopback = (req: Request): boolean => isLoopback(req.socket.remoteAddress ?? '')

/** An IPv6 sender counts by its /64 (one host usually holds a whole /64); an IPv4 sender by its address. */
export function rateKey(ip: string): string {
  if (!ip.includes(':')) return ip
  try {
    return ipaddr.IPv6.parse(ip).parts.slice(0, 4).join(':')
  } catch {
    return ip
  }
}

/** The length of every rate-limit window: a minute. */
export const WINDOW_MS = 60_000

/** Where a key stands after a request: whether it was let through, how many more fit, seconds until the window frees one. */
export interface Taken {
  allowed: boolean
  remaining: number
  reset: number
}

/**
 * The sliding one-minute window of each key: the times of its requests in the last minute. Kept in the process (it
 * costs no write); with several processes on one PostgreSQL database each counts its own share.
 */
export class SlidingWindows {
  private readonly hits = new Map<string, number[]>()
  private sweptAt = 0

  constructor(readonly limit: number) {}

  /** Counts a request at `now` unless the key is at its limit already. */
  take(key: string, now: number): Taken {
    let recent = this.hits.get(key)
    if (!recent) this.hits.set(key, (recent = []))
    // The times are in order: those that left the window go from the front, in place (no copy per request).
    let gone = 0
    while (gone < recent.length && recent[gone] <= now - WINDOW_MS) gone++
    if (gone > 0) recent.splice(0, gone)
    const allowed = recent.length < this.limit
    if (allowed) recent.push(now)
    // Keys quiet for a whole window are forgotten, in one sweep per window (not per request).
    if (now - this.sweptAt >= WINDOW_MS) {
      this.sweptAt = now
      for (const [k, v] of this.hits) if (v.length === 0 || v[v.length - 1] <= now - WINDOW_MS) this.hits.delete(k)
    }
    return { allowed, remaining: this.limit - recent.length, reset: Math.max(1, Math.ceil((recent[0] + WINDOW_MS - now) / 1000)) }
  }

  /** Forgets the key's requests (a right password clears an account's failures). */
  clear(key: string): void {
    this.hits.delete(key)
  }
}

/** The RateLimit-* headers of a limited request (and Retry-After once it is refused). */
export function rateLimitHeaders(limit: number, taken: Taken): Record<string, string> {
  return {
    'RateLimit-Policy': `${limit};w=${WINDOW_MS / 1000}`,
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, taken.remaining)),
    'RateLimit-Reset': String(taken.reset),
    ...(taken.allowed ? {} : { 'Retry-After': String(taken.reset) }),
  }
}

/** The 429 of a request over the general limit. */
export const rateLimited = (message: string, limit: number, taken: Taken) =>
  new HttpError(429, 'rate_limited', message, undefined, rateLimitHeaders(limit, taken))

const byAddress = new WeakMap<Deps, SlidingWindows>()

/**
 * Counts a request without a valid token against its sender's address (a public page, or a request whose token was
 * refused, so token guessing is limited too): its RateLimit-* headers, or a 429 past TASKD_RATE_LIMIT. Off: no headers.
 */
export function limitAddress(deps: Deps, req: Request): Record<string, string> {
  const limit = deps.config.rateLimit
  if (limit === 0) return {}
  let windows = byAddress.get(deps)
  if (!windows) byAddress.set(deps, (windows = new SlidingWindows(limit)))
  const taken = windows.take(rateKey(senderOf(deps, req)), deps.clock.now())
  if (!taken.allowed) throw rateLimited(`Too many requests: at most ${limit} a minute from one address without a valid token.`, limit, taken)
  return rateLimitHeaders(limit, taken)
}

/** The address limit as middleware, for the routes that take no token (the document, the docs pages, public notes). */
export const addressRateLimit =
  (deps: Deps): RequestHandler =>
  (req, res, next) => {
    res.set(limitAddress(deps, req))
    next()
  }
