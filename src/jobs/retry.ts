// Backoff for jobs that failed and are tried again: the due time of the next try from a list of delays.

/** Delay in ms before retry number `retry` (0: the first retry); a shorter list repeats its last entry, none means a minute. */
export function retryDelayMs(delaysSeconds: readonly number[], retry: number): number {
  const list = delaysSeconds.length ? delaysSeconds : [60]
  return Math.round(list[Math.max(0, Math.min(retry, list.length - 1))] * 1000)
}

/** When a job is due again after retry number `retry`, at most at `latest` (e.g. its expiry). */
export const retryAt = (now: number, delaysSeconds: readonly number[], retry: number, latest = Infinity): number =>
  Math.min(now + retryDelayMs(delaysSeconds, retry), latest)
