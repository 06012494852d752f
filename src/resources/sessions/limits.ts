// The sign-in limits, apart from TASKD_RATE_LIMIT (they guard passwords, not the server's share): attempts a minute
// per address (TASKD_SIGNIN_ATTEMPTS_PER_MINUTE, every attempt counts) and failed passwords a minute per account
// (TASKD_SIGNIN_FAILURES_PER_MINUTE: a wrong password at sign-in, or a wrong current_password), past which 429 with
// Retry-After. An account is counted by its user where the email names one and by the email as typed where it does
// not, so an unknown email is refused just as a known one. Sliding one-minute windows by the injected clock, kept in
// the process (as the address limit of the API is): with several processes each counts its own share.
import type { Deps } from '../../deps.js'
import { rateKey, rateLimited, SlidingWindows, type Taken, WINDOW_MS } from '../../http/rate-limit.js'

/** Failures of each key in the last minute, counted only when they happen (an attempt that succeeds costs nothing). */
class Failures {
  private readonly at = new Map<string, number[]>()
  private sweptAt = 0

  constructor(readonly limit: number) {}

  private recent(key: string, now: number): number[] {
    const times = (this.at.get(key) ?? []).filter((t) => t > now - WINDOW_MS)
    if (times.length) this.at.set(key, times)
    else this.at.delete(key)
    if (now - this.sweptAt >= WINDOW_MS) {
      this.sweptAt = now
      for (const [k, v] of this.at) if (v[v.length - 1] <= now - WINDOW_MS) this.at.delete(k)
    }
    return times
  }

  /** Where the key stands: refused once it has had `limit` failures in the last minute. */
  check(key: string, now: number): Taken {
    const times = this.recent(key, now)
    return {
      allowed: times.length < this.limit,
      remaining: this.limit - times.length,
      reset: times.length ? Math.max(1, Math.ceil((times[0] + WINDOW_MS - now) / 1000)) : 1,
    }
  }

  /** Counts a failure now. */
  fail(key: string, now: number): void {
    this.at.set(key, [...this.recent(key, now), now])
  }

  clear(key: string): void {
    this.at.delete(key)
  }
}

interface Limits {
  attempts?: SlidingWindows
  failures?: Failures
}
const limitsOf = new WeakMap<Deps, Limits>()

function limits(deps: Deps): Limits {
  let found = limitsOf.get(deps)
  if (!found) {
    const { signinAttemptsPerMinute: attempts, signinFailuresPerMinute: failures } = deps.config
    found = { attempts: attempts > 0 ? new SlidingWindows(attempts) : undefined, failures: failures > 0 ? new Failures(failures) : undefined }
    limitsOf.set(deps, found)
  }
  return found
}

/** Counts a sign-in attempt from `address`; 429 past the limit. */
export function countAttempt(deps: Deps, address: string): void {
  const windows = limits(deps).attempts
  if (!windows) return
  const taken = windows.take(rateKey(address), deps.clock.now())
  if (!taken.allowed) throw rateLimited(`Too many sign-in attempts: at most ${windows.limit} a minute from one address.`, windows.limit, taken)
}

/** The account an attempt is counted against: its user when the email names one, else the email. */
export const accountKey = (userId: string | undefined, email: string): string => (userId ? `user ${userId}` : `email ${email.toLowerCase()}`)

/**
 * A password about to be checked for the account: 429 while it has had its share of failures in the last minute, else
 * counted as a failure at once (before the check, which takes a while), so that tries sent together cannot all pass
 * the limit before any has failed. A right password then clears the account's failures (clearFailures).
 */
export function startTry(deps: Deps, account: string): void {
  const failures = limits(deps).failures
  if (!failures) return
  const now = deps.clock.now()
  const taken = failures.check(account, now)
  if (!taken.allowed)
    throw rateLimited(`Too many wrong passwords for this account: at most ${failures.limit} a minute. Try again later.`, failures.limit, taken)
  failures.fail(account, now)
}

/** A right password clears the account's failures. */
export const clearFailures = (deps: Deps, account: string): void => limits(deps).failures?.clear(account)
