// Records settled attempts: outbox state, log rows, the subscription's last-delivery mark, and log pruning, in one transaction.
import type { Db } from '../db/database.js'
import type { Settlement } from './deliver.js'
import type { WebhookLogsTable } from '../db/types.js'
import { LOGS_KEPT, insertLogs, pruneLogs, setLastDelivery, settleOutboxRows } from './store.js'

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

/** One commit for a whole batch instead of one per delivery: at a thousand deliveries a second that is most of the cost. */
export function writeSettlements(db: Db, batch: readonly Settlement[]): Promise<void> {
  return db.tx(async ({ q }) => {
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
  })
}
