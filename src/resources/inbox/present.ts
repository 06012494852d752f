// Inbox items in API shape: a page's tasks, boards and subscriptions in three queries.
import type { Config } from '../../config.js'
import type { Q } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { InboxItemsTable } from '../../db/types.js'
import { getBoards } from '../boards/published.js'
import { cardUrl } from '../cards/present.js'
import { InboxItemSchema, type InboxItemView } from './schema.js'
import { fromJsonColumn } from '../../db/json.js'

export async function inboxItemViews(q: Q, config: Config, rows: readonly InboxItemsTable[]): Promise<InboxItemView[]> {
  const ids = (column: 'card_id' | 'webhook_id') => [...new Set(rows.flatMap((r) => (r[column] === null ? [] : [r[column]])))]
  const cards = new Map((await rowsByIds(q, 'cards', ids('card_id'))).map((c) => [c.id, c]))
  const boards = new Map((await getBoards(q, [...new Set([...cards.values()].map((c) => c.board_id))])).map((b) => [b.id, b]))
  const webhooks = new Map((await rowsByIds(q, 'webhooks', ids('webhook_id'))).map((w) => [w.id, w]))
  return rows.map((r) => {
    const card = r.card_id === null ? undefined : cards.get(r.card_id)
    const webhook = r.webhook_id === null ? undefined : webhooks.get(r.webhook_id)
    return {
      id: r.id,
      kind: r.kind,
      card: card ? { id: card.id, key: card.key, title: card.title, url: cardUrl(config, card.id) } : null,
      board: card ? { id: card.board_id, name: boards.get(card.board_id)?.name ?? '' } : null,
      comment: r.comment_id,
      question: r.question_id,
      webhook: webhook ? { id: webhook.id, name: webhook.name } : null,
      actor: fromJsonColumn(InboxItemSchema.shape.actor, r.actor),
      read: r.read_at !== null,
      read_at: r.read_at,
      created: r.created_at,
    }
  })
}
