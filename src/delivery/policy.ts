// What an attempt's result means: delivered, retry later, or give up, and when the next try is due.
import type { OutboxTable, WebhookLogsTable } from '../db/types.js'
import type { SendResult } from './send.js'
import { retryDelayMs as jobRetryDelayMs } from '../jobs/retry.js'

/** At most five attempts per delivery. */
export const MAX_ATTEMPTS = 5

/** A subscription is paused (`paused_reason: failing`) after this many deliveries failed in a row, ... */
export const PAUSE_AFTER_FAILURES = 100
/** ... or when its deliveries have been failing this long without one success (3 days). */
export const PAUSE_AFTER_FAILING_MS = 3 * 86_400_000

export interface Verdict {
  outcome: WebhookLogsTable['outcome']
  status: OutboxTable['status']
  error?: string
}

/**
 * Only transient failures (timeout, connection error, 5xx) are retried. A 4xx is the receiver refusing the
 * payload, so it is dropped after one try; a 3xx fails at once because following it could lead anywhere.
 */
export function judgeAttempt(result: SendResult, attempt: number): Verdict {
  const transient = (error: string): Verdict =>
    attempt < MAX_ATTEMPTS
      ? { outcome: 'retrying', status: 'pending', error }
      : { outcome: 'failed', status: 'failed', error: `${error}; gave up after ${MAX_ATTEMPTS} attempts` }
  switch (result.outcome) {
    case 'ok':
      return { outcome: 'delivered', status: 'delivered' }
    case 'redirect':
      return { outcome: 'failed', status: 'failed', error: `receiver answered ${result.statusCode}; redirects are not followed` }
    case 'client_error':
      return { outcome: 'dropped', status: 'dropped', error: `receiver answered ${result.statusCode}; not retried` }
    case 'refused_target':
      return { outcome: 'failed', status: 'failed', error: `target refused: ${result.error ?? 'private or reserved address'}` }
    case 'server_error':
      return transient(`receiver answered ${result.statusCode}`)
    case 'timeout':
      return transient(result.error ?? 'timed out')
    default:
      return transient(result.error ?? 'connection failed')
  }
}

/** Delay before attempt `attempt + 1`, from TASKD_WEBHOOK_RETRY_DELAYS; a shorter list repeats its last entry. */
export const retryDelayMs = (delaysSeconds: readonly number[], attempt: number): number => jobRetryDelayMs(delaysSeconds, attempt - 1)
