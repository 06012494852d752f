// The inbox: items are written by the families whose changes concern someone (notify), in the change's transaction;
// each user reads, marks and dismisses their own.
import { type Actor, actorWithKind } from '../../access/roles.js'
import { usersSeeingBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import type { CardsTable, InboxItemsTable, WebhooksTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { expandCard } from '../cards/present.js'
import { inboxItemViews } from './present.js'
import { INBOX_LIST } from './query.js'
import type { InboxItemView } from './schema.js'
import { deleteInboxItem, getVisibleInboxItem, insertInboxItems, markAllRead, setReadAt, unreadCount, visibleInboxQuery } from './store.js'

export interface Notice {
  kind: InboxItemsTable['kind']
  users: readonly string[]
  card: Pick<CardsTable, 'id' | 'board_id'>
  comment?: string
  question?: string
}

/**
 * Puts an item in the inbox of each of `users` who sees the card's board, except the actor's own (nobody is told what
 * they did themselves). Returns the users it reached.
 */
export async function notify(deps: Deps, tx: Tx, actor: Actor, notice: Notice): Promise<Set<string>> {
  const wanted = new Set(notice.users)
  wanted.delete(actorWithKind(actor).id)
  if (wanted.size === 0) return wanted
  const reached = new Set((await usersSeeingBoard(tx.q, notice.card.board_id, [...wanted])).map((u) => u.id))
  const at = isoAt(deps.clock.now())
  const by = JSON.stringify(actorWithKind(actor))
  await insertInboxItems(
    tx.q,
    [...reached].map((user_id) => ({
      id: newId(),
      user_id,
      kind: notice.kind,
      card_id: notice.card.id,
      comment_id: notice.comment ?? null,
      question_id: notice.question ?? null,
      webhook_id: null,
      actor: by,
      read_at: null,
      created_at: at,
    })),
  )
  return reached
}

/** Who caused an item taskd made by itself (a subscription paused for failing). */
const TASKD = JSON.stringify({ id: 'system', name: 'taskd', kind: 'system' })

/** Tells the creator of each subscription taskd paused for failing: an item about no task, naming the subscription. */
export async function notifyWebhooksPaused(deps: Deps, tx: Tx, webhooks: readonly Pick<WebhooksTable, 'id' | 'created_by'>[]): Promise<void> {
  const at = isoAt(deps.clock.now())
  await insertInboxItems(
    tx.q,
    webhooks.map((w) => ({
      id: newId(),
      user_id: w.created_by,
      kind: 'webhook_paused',
      card_id: null,
      comment_id: null,
      question_id: null,
      webhook_id: w.id,
      actor: TASKD,
      read_at: null,
      created_at: at,
    })),
  )
}

export function listInbox(deps: Deps, actor: Actor, params: ListParams & { unread?: boolean }) {
  const { q } = deps.db
  const base = visibleInboxQuery(q, actor.user)
  return listPage(deps.db, params.unread ? base.where('inbox_items.read_at', 'is', null) : base, INBOX_LIST, params, async (rows: InboxItemsTable[], expand) =>
    // An item about no task has no card to expand (its `expand` is then empty).
    expandCard(q, await inboxItemViews(q, deps.config, rows), expand, (item) => item.card?.id ?? ''),
  )
}

export const countUnread = async (deps: Deps, actor: Actor): Promise<number> => unreadCount(deps.db.q, actor.user)

async function ownItem(deps: Deps, actor: Actor, id: string, q = deps.db.q): Promise<InboxItemsTable> {
  const row = await getVisibleInboxItem(q, actor.user, id)
  if (!row) throw notFound('inbox item')
  return row
}

export const getInboxItem = async (deps: Deps, actor: Actor, id: string): Promise<InboxItemView> =>
  (await inboxItemViews(deps.db.q, deps.config, [await ownItem(deps, actor, id)]))[0]

export const updateInboxItem = (deps: Deps, actor: Actor, id: string, input: { read: boolean }): Promise<InboxItemView> =>
  deps.db.tx(async ({ q }) => {
    const row = await ownItem(deps, actor, id, q)
    const readAt = input.read ? (row.read_at ?? isoAt(deps.clock.now())) : null
    if (readAt !== row.read_at) await setReadAt(q, id, readAt)
    return (await inboxItemViews(q, deps.config, [{ ...row, read_at: readAt }]))[0]
  })

export const dismissInboxItem = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    await ownItem(deps, actor, id, q)
    await deleteInboxItem(q, id)
  })

export const readAllInbox = (deps: Deps, actor: Actor): Promise<number> => deps.db.tx(({ q }) => markAllRead(q, actor.user, isoAt(deps.clock.now())))
