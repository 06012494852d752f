// The sign-in limits, apart from TASKD_RATE_LIMIT (they guard passwords, not the server's share): attempts a minute
// per address (TASKD_SIGNIN_ATTEMPTS_PER_MINUTE, every attempt counts) and failed passwords a minute per account
// (TASKD_SIGNIN_FAILURES_PER_MINUTE: a wrong password at sign-in, or a wrong current_password), past which 429 with
// Retry-After. An account is counted by its user where the email names one and by the email as typed where it does
// not, so an unknown email is refused just as a known one. Sliding one-minute windows by the injected clock, kept in
// the process (as the address limit of the API is): with several processes each counts its own share.
import type { Deps } from '../../deps.js'
import { rateKey, rateLimited, SlidingWindows } from '../../http/rate-limit.js'

interface Limits {
  attempts?: SlidingWindows
  /** Failed passwords per account: a try is counted before its check (startTry) and the count cleared when it was right. */
  failures?: SlidingWindows
}
const limitsOf = new WeakMap<Deps, Limits>()

function limits(deps: Deps): Limits {
  let found = limitsOf.get(deps)
  if (!found) {
    const { signinAttemptsPerMinute: attempts, signinFailuresPerMinute: failures } = deps.config
    found = { attempts: attempts > 0 ? new SlidingWindows(attempts) : undefined, failures: failures > 0 ? new SlidingWindows(failures) : undefined }
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
  const taken = failures.take(account, deps.clock.now())
  if (!taken.allowed)
    throw rateLimited(`Too many wrong passwords for this account: at most ${failures.limit} a minute. Try again later.`, failures.limit, taken)
}

/** A right password clears the account's failures. */
export const clearFailures = (deps: Deps, account: string): void => limits(deps).failures?.clear(account)
