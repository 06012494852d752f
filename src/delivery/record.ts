// Records settled attempts: outbox state, log rows, the subscription's last-delivery mark, log pruning, and its health
// (failures since its last success; paused when failing too long), in one transaction.
import { isoAt } from '../clock.js'
import type { Tx } from '../db/database.js'
import type { Deps } from '../deps.js'
import { PAUSE_AFTER_FAILING_MS, PAUSE_AFTER_FAILURES } from './policy.js'
import type { Settlement } from './deliver.js'
import type { WebhookLogsTable } from '../db/types.js'
import { countFailures, LOGS_KEPT, insertLogs, pauseFailing, pruneLogs, setLastDelivery, settleOutboxRows } from './store.js'

/**
 * The last LOGS_KEPT logs of each subscription, in order: pruning in the same transaction would delete the others at
 * once, so they are never written (a busy subscription settles a hundred attempts in one batch).
 */
function newestPerWebhook(logs: readonly Omit<WebhookLogsTable, 'seq'>[]): Omit<WebhookLogsTable, 'seq'>[] {
  const left = new Map<string, number>()
  return [...logs]
    .reverse()
    .filter((l) => {
      const n = left.get(l.webhook_id) ?? LOGS_KEPT
      left.set(l.webhook_id, n - 1)
      return n > 0
    })
    .reverse()
}

/**
 * Each subscription's failures since its last success after this batch, and pauses those that reached a threshold
 * (PAUSE_AFTER_FAILURES in a row, or failing for PAUSE_AFTER_FAILING_MS), by the injected clock; the webhooks family
 * announces the paused ones (audit entry, inbox item) in the same transaction through deps.onWebhooksPaused.
 */
async function judgeHealth(deps: Deps, tx: Tx, settled: readonly Settlement[]): Promise<void> {
  const byWebhook = new Map<string, Settlement[]>()
  for (const s of settled) if (s.health) (byWebhook.get(s.webhookId) ?? byWebhook.set(s.webhookId, []).get(s.webhookId)!).push(s)
  const failing: string[] = []
  for (const [webhookId, outcomes] of [...byWebhook].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const lastSuccess = outcomes.map((s) => s.health).lastIndexOf('success')
    const failures = outcomes.slice(lastSuccess + 1)
    await countFailures(tx.q, webhookId, { reset: lastSuccess >= 0, failures: failures.length, since: failures[0]?.log?.at ?? null })
    if (failures.length) failing.push(webhookId)
  }
  const now = deps.clock.now()
  const paused = await pauseFailing(tx.q, failing, PAUSE_AFTER_FAILURES, isoAt(now - PAUSE_AFTER_FAILING_MS), isoAt(now))
  if (paused.length) await deps.onWebhooksPaused(deps, tx, paused)
}

/** One commit for a whole batch instead of one per delivery: at a thousand deliveries a second that is most of the cost. */
export function writeSettlements(deps: Deps, batch: readonly Settlement[]): Promise<void> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    // Rows sharing a final status (or a retry time) are settled together; settleOutboxRows returns the ids that changed.
    const groups = new Map<string, Settlement[]>()
    for (const s of batch) {
      const key = s.status === 'pending' ? `pending:${s.dueAt}` : s.status
      ;(groups.get(key) ?? groups.set(key, []).get(key)!).push(s)
    }
    const changed = new Set<string>()
    for (const group of groups.values()) {
      for (const id of await settleOutboxRows(
        q,
        group.map((s) => s.id),
        group[0].status,
        group[0].dueAt,
      ))
        changed.add(id)
    }
    // An id that did not change went with its deleted subscription: nothing is left to log against.
    const logs = batch.filter((s) => s.log !== null && changed.has(s.id)).map((s) => s.log!)
    await insertLogs(q, newestPerWebhook(logs))
    const last = new Map(logs.map((l) => [l.webhook_id, l]))
    // In id order: two processes recording for the same subscriptions lock their rows in the same order (no deadlock).
    for (const [webhookId, log] of [...last].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      await setLastDelivery(q, webhookId, { status_code: log.status_code, outcome: log.outcome, at: log.at })
      await pruneLogs(q, webhookId)
    }
    await judgeHealth(
      deps,
      tx,
      batch.filter((s) => changed.has(s.id)),
    )
  })
}
