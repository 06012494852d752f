// Self-healing subscriptions: what taskd does when the outbox has paused subscriptions that kept failing (the counting
// and the pause are the delivery engine's, src/delivery/record.ts), and how a person takes one up again (resume).
import { type Actor } from '../../access/roles.js'
import { DAY_MS, isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import type { WebhooksTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { enqueueDelivery } from '../../events/emit.js'
import { expandEventSelectors } from '../../events/names.js'
import { conflict, invalidField } from '../../errors.js'
import { PAUSE_AFTER_FAILING_MS, PAUSE_AFTER_FAILURES } from '../../delivery/policy.js'
import { boardsOfWebhooks, dropPendingDeliveries } from '../../delivery/store.js'
import { fromJsonColumn, StringList } from '../../db/json.js'
import { audit, SYSTEM } from '../audit/record.js'
import { notifyWebhooksPaused } from '../inbox/service.js'
import { getUser } from '../users/published.js'
import { webhookViews } from './present.js'
import type { WebhookView } from './schema.js'
import { visibleWebhook } from './service.js'
import { eventsSince, updateWebhookRow } from './store.js'

/**
 * The hook the outbox calls (deps.onWebhooksPaused) in the transaction that paused subscriptions for failing: each
 * gets a `webhook.paused` audit entry by taskd, and its creator an inbox item.
 */
export async function announcePausedWebhooks(deps: Deps, tx: Tx, paused: readonly WebhooksTable[]): Promise<void> {
  for (const w of paused)
    await audit(deps, tx, SYSTEM, 'webhook.paused', w, {
      details: {
        reason: 'failing',
        failures: w.failures,
        failing_since: w.failing_since,
        rule: w.failures >= PAUSE_AFTER_FAILURES ? `${PAUSE_AFTER_FAILURES} failures in a row` : `${PAUSE_AFTER_FAILING_MS / DAY_MS} days without a success`,
      },
    })
  await notifyWebhooksPaused(deps, tx, paused)
}

/** Events replayed by one resume at most; a replay_since further back is refused (422), so one request stays bounded. */
export const MAX_REPLAY = 10_000

/**
 * Takes an inactive subscription up again (409 when it is active). What it missed is not sent, and deliveries still
 * queued for it from before are dropped, unless `replay_since` is given: then every event from that time on that the
 * subscription takes (its events and boards, what its creator sees now) is queued again in its order, each a new
 * delivery of the event's original payload and time, due a millisecond apart so they are claimed in that order.
 */
export async function resumeWebhook(
  deps: Deps,
  actor: Actor,
  id: string,
  input: { replay_since?: string },
): Promise<{ webhook: WebhookView; replayed: number }> {
  const now = deps.clock.now()
  const since = input.replay_since === undefined ? undefined : Date.parse(input.replay_since)
  if (since !== undefined && since > now) throw invalidField('replay_since', 'Must not be in the future.')
  // Events older than the log keeps are gone: a replay from before then would silently miss them.
  const kept = now - deps.config.eventRetentionDays * 86_400_000
  if (since !== undefined && since < kept)
    throw invalidField('replay_since', `Events are kept ${deps.config.eventRetentionDays} days (TASKD_EVENT_RETENTION_DAYS); choose ${isoAt(kept)} or later.`)
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const row = await visibleWebhook(q, actor, id)
    if (row.active === 1) throw conflict('The subscription is active; only an inactive one is resumed.')
    await dropPendingDeliveries(q, id)
    let replayed = 0
    if (since !== undefined) {
      const creator = await getUser(q, row.created_by)
      const selected = expandEventSelectors(fromJsonColumn(StringList, row.events))
      const names = typeof selected === 'string' ? [] : [...selected]
      const boards = row.all_boards ? null : ((await boardsOfWebhooks(q, [id])).get(id) ?? [])
      const events = creator && names.length ? await eventsSince(q, isoAt(since), names, boards, creator, MAX_REPLAY + 1) : []
      if (events.length > MAX_REPLAY)
        throw invalidField('replay_since', `More than ${MAX_REPLAY} events happened since then; choose a later time (or resume without a replay).`)
      for (const [i, ev] of events.entries())
        await enqueueDelivery(deps, tx, {
          webhookId: id,
          eventId: ev.id,
          boardId: ev.board_id,
          event: ev.name,
          timestamp: ev.created_at,
          data: JSON.parse(ev.data),
          dueAt: now + i,
        })
      replayed = events.length
    }
    await updateWebhookRow(q, id, { active: 1, paused_reason: null, failures: 0, failing_since: null, updated_at: isoAt(now) })
    const resumed = { ...row, active: 1 }
    await audit(deps, tx, actor, 'webhook.resumed', resumed, {
      details: { was_paused: row.paused_reason, replay_since: since === undefined ? null : isoAt(since), replayed },
    })
    return {
      webhook: (await webhookViews(q, [{ ...resumed, paused_reason: null, failures: 0, failing_since: null, updated_at: isoAt(now) }], now))[0],
      replayed,
    }
  })
}
