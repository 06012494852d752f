// One attempt of one outbox row: re-check the subscription, send it signed, judge the answer, and record the outcome.
import type { Dispatcher } from 'undici'
import { isoAt } from '../clock.js'
import { secretsOf } from '../crypto.js'
import type { Sql } from '../db/sql.js'
import type { OutboxTable, WebhookLogsTable, WebhooksTable } from '../db/types.js'
import type { Deps } from '../domain/context.js'
import { newId } from '../ids.js'
import { isBoardMember } from '../store/boards.js'
import { insertLog, pruneLogs, settleOutboxRow } from '../store/outbox.js'
import { getUser } from '../store/users.js'
import { getWebhook, setLastDelivery } from '../store/webhooks.js'
import { authHeaders, openAuth, openSecret } from './credentials.js'
import { deliveryHeaders } from './headers.js'
import { judgeAttempt, retryDelayMs } from './policy.js'
import { sendWebhook } from './send.js'

export interface DeliveryEnv {
  deps: Deps
  userAgent: string
  /** Replaces the shared SSRF-guarded agent (tests inject one with a fake resolver). */
  dispatcher?: Dispatcher
}

/** What an attempt decided; written in batches by writeSettlements. `log` is null when the row vanished with its subscription. */
export interface Settlement {
  id: string
  webhookId: string
  status: OutboxTable['status']
  attempts: number
  dueAt: number
  log: Omit<WebhookLogsTable, 'seq'> | null
}

type Gate = { sub: WebhooksTable } | { drop: string } | { gone: true }

/** Checked at delivery, not only when the event was queued: SPEC says a member who leaves a board stops receiving it. */
function gate(sql: Sql, row: OutboxTable): Gate {
  const sub = getWebhook(sql, row.webhook_id)
  if (!sub) return { gone: true }
  // A test delivery is an explicit request to try the endpoint, so it goes out even while the subscription is paused.
  if (row.event === 'webhook.test') return { sub }
  if (!sub.active) return { drop: 'the subscription is inactive; not sent' }
  if (row.board_id !== null) {
    const creator = getUser(sql, sub.created_by)
    const exempt = creator?.role === 'owner' || creator?.role === 'admin'
    if (!exempt && !isBoardMember(sql, row.board_id, sub.created_by)) {
      return { drop: 'the subscription\'s creator is no longer a member of the event\'s board; not sent' }
    }
  }
  return { sub }
}

export async function deliverRow(env: DeliveryEnv, row: OutboxTable): Promise<Settlement> {
  const { deps } = env
  const attempt = row.attempts + 1
  const at = isoAt(deps.clock.now())
  const logOf = (l: Pick<WebhookLogsTable, 'status_code' | 'outcome' | 'error' | 'duration_ms' | 'response_excerpt'>) => ({
    id: newId(), webhook_id: row.webhook_id, delivery_id: row.id, event: row.event, attempt, at, request_body: row.body, ...l,
  })
  const g = gate(deps.sql, row)
  if ('gone' in g) return { id: row.id, webhookId: row.webhook_id, status: 'dropped', attempts: row.attempts, dueAt: row.due_at, log: null }
  if ('drop' in g) {
    return {
      id: row.id, webhookId: row.webhook_id, status: 'dropped', attempts: attempt, dueAt: row.due_at,
      log: logOf({ status_code: null, outcome: 'dropped', error: g.drop, duration_ms: 0, response_excerpt: '' }),
    }
  }
  const { sub } = g
  let headers: Record<string, string>
  try {
    const box = secretsOf(deps)
    headers = deliveryHeaders({
      event: row.event, deliveryId: row.id, body: row.body, secret: openSecret(box, sub), userAgent: env.userAgent,
      auth: authHeaders(sub.auth_type, sub.auth_header_name, openAuth(box, sub)), static: JSON.parse(sub.headers) as Record<string, string>,
    })
  } catch {
    // Sending unsigned or without credentials would be worse than not sending; the message never includes the secret.
    return {
      id: row.id, webhookId: row.webhook_id, status: 'failed', attempts: attempt, dueAt: row.due_at,
      log: logOf({ status_code: null, outcome: 'failed', error: 'stored secret or credentials cannot be decrypted (was the master key changed?)', duration_ms: 0, response_excerpt: '' }),
    }
  }
  const result = await sendWebhook({
    url: sub.url, method: sub.method, headers, body: row.body, timeoutMs: deps.config.webhookTimeoutMs,
    allowPrivate: deps.config.allowPrivateTargets, dispatcher: env.dispatcher,
  })
  const verdict = judgeAttempt(result, attempt)
  const dueAt = verdict.status === 'pending' ? deps.clock.now() + retryDelayMs(deps.config.webhookRetryDelays, attempt) : row.due_at
  return {
    id: row.id, webhookId: row.webhook_id, status: verdict.status, attempts: attempt, dueAt,
    log: logOf({
      status_code: result.statusCode, outcome: verdict.outcome, error: verdict.error ?? null,
      duration_ms: result.durationMs, response_excerpt: result.responseExcerpt,
    }),
  }
}

/** Records many attempts in one transaction (one commit instead of one per delivery keeps throughput up). */
export function writeSettlements(sql: Sql, batch: readonly Settlement[]): void {
  sql.tx(() => {
    const touched = new Map<string, Settlement['log']>()
    for (const s of batch) {
      // Zero rows changed: the subscription was deleted meanwhile (cascade), so there is nothing to log against.
      if (settleOutboxRow(sql, s.id, { status: s.status, attempts: s.attempts, due_at: s.dueAt }) === 0 || !s.log) continue
      insertLog(sql, s.log)
      touched.set(s.webhookId, s.log)
    }
    for (const [webhookId, log] of touched) {
      setLastDelivery(sql, webhookId, { status_code: log!.status_code, outcome: log!.outcome, at: log!.at })
      pruneLogs(sql, webhookId)
    }
  })
}
