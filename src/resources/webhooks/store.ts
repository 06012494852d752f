// Subscription queries: rows and their boards, pausing by board, and the events a sample is taken from.
import { sql as rawSql } from 'kysely'
import { eventsSeenBy } from '../../access/records.js'
import type { Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { EventsTable, WebhooksTable } from '../../db/types.js'

export const getWebhook = (q: Q, id: string) => q.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst()
export const insertWebhook = (q: Q, row: WebhooksTable) => q.insertInto('webhooks').values(row).execute()
export const updateWebhookRow = (q: Q, id: string, set: Partial<WebhooksTable>) => q.updateTable('webhooks').set(set).where('id', '=', id).execute()
export const deleteWebhookRow = (q: Q, id: string) => q.deleteFrom('webhooks').where('id', '=', id).execute()

/** Forgets the secrets before a rotation whose overlap ended by `at`. */
export const forgetPreviousSecrets = async (q: Q, at: string): Promise<void> => {
  await q.updateTable('webhooks').set({ previous_secret_enc: null, previous_secret_until: null }).where('previous_secret_until', '<=', at).execute()
}

export async function setWebhookBoards(q: Q, webhookId: string, boardIds: readonly string[]): Promise<void> {
  await q.deleteFrom('webhook_boards').where('webhook_id', '=', webhookId).execute()
  if (boardIds.length)
    await q
      .insertInto('webhook_boards')
      .values(boardIds.map((board_id) => ({ webhook_id: webhookId, board_id })))
      .execute()
}

/** Pauses the subscriptions that name this board and no other, before the board (and their link to it) is deleted. */
export const pauseSubscriptionsOnlyOn = (q: Q, boardId: string, at: string) =>
  q
    .updateTable('webhooks')
    .set({ active: 0, paused_reason: 'board_deleted', updated_at: at })
    .where('all_boards', '=', 0)
    .where('id', 'in', q.selectFrom('webhook_boards').select('webhook_id').where('board_id', '=', boardId))
    .where(rawSql<boolean>`NOT EXISTS (SELECT 1 FROM webhook_boards other WHERE other.webhook_id = webhooks.id AND other.board_id != ${boardId})`)
    .execute()

/** Base query of the subscription list: one creator's subscriptions, or every one. */
export const webhooksQuery = (q: Q, creatorId?: string) =>
  creatorId ? q.selectFrom('webhooks').where('webhooks.created_by', '=', creatorId) : q.selectFrom('webhooks')

/** The newest event among `names`, on `boards` unless null (every board), that `viewer` (the subscription's creator) sees. */
export function newestEvent(q: Q, names: readonly string[], boards: readonly string[] | null, viewer: Viewer): Promise<EventsTable | undefined> {
  let query = q
    .selectFrom('events')
    .selectAll()
    .where('name', 'in', [...names])
    .where(eventsSeenBy(q, viewer))
  if (boards) query = query.where('board_id', 'in', [...boards])
  return query.orderBy('seq', 'desc').limit(1).executeTakeFirst()
}

/** Recent events a user sees, newest first. */
export function recentEvents(q: Q, viewer: Viewer, event: string | undefined, limit: number): Promise<EventsTable[]> {
  let query = q.selectFrom('events').selectAll().where(eventsSeenBy(q, viewer))
  if (event !== undefined) query = query.where('name', '=', event)
  return query.orderBy('seq', 'desc').limit(limit).execute()
}

/**
 * Events from `sinceIso` on, in their order, among `names`, on `boards` (null: every board, and those of no board),
 * that `viewer` (the subscription's creator) sees: what a resumed subscription replays.
 */
export function eventsSince(
  q: Q,
  sinceIso: string,
  names: readonly string[],
  boards: readonly string[] | null,
  viewer: Viewer,
  limit: number,
): Promise<EventsTable[]> {
  if (boards?.length === 0) return Promise.resolve([])
  let query = q
    .selectFrom('events')
    .selectAll()
    .where('created_at', '>=', sinceIso)
    .where('name', 'in', [...names])
    .where(eventsSeenBy(q, viewer))
  if (boards) query = query.where('board_id', 'in', [...boards])
  return query.orderBy('seq').limit(limit).execute()
}

/** A delivery log entry of a subscription. */
export const getLog = (q: Q, webhookId: string, logId: string) =>
  q.selectFrom('webhook_logs').selectAll().where('webhook_id', '=', webhookId).where('id', '=', logId).executeTakeFirst()
