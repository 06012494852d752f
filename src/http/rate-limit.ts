// General API rate limiting (TASKD_RATE_LIMIT=on): a fixed one-minute window per token.
import type { Clock } from '../clock.js'
import { HttpError } from '../errors.js'

export const REQUESTS_PER_MINUTE = 600
const WINDOW_MS = 60_000

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>()
  constructor(
    private readonly clock: Clock,
    private readonly limit = REQUESTS_PER_MINUTE,
  ) {}

  /** Counts one request for `key`; throws 429 with Retry-After once the window's budget is spent. */
  take(key: string): void {
    const now = this.clock.now()
    let w = this.windows.get(key)
    if (!w || now - w.start >= WINDOW_MS || now < w.start) {
      if (this.windows.size > 10_000) this.windows.clear()
      w = { start: now, count: 0 }
      this.windows.set(key, w)
    }
    if (++w.count > this.limit) {
      const retry = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000))
      throw new HttpError(429, 'rate_limited', `Too many requests: at most ${this.limit} a minute per token.`, undefined, { 'Retry-After': String(retry) })
    }
  }
}
