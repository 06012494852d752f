// Inbox items in API shape: a page's tasks and boards in two queries.
import type { Config } from '../../config.js'
import type { Q } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { InboxItemsTable } from '../../db/types.js'
import { getBoards } from '../boards/published.js'
import { cardUrl } from '../cards/present.js'
import { InboxItemSchema, type InboxItemView } from './schema.js'
import { fromJsonColumn } from '../../db/json.js'

export async function inboxItemViews(q: Q, config: Config, rows: readonly InboxItemsTable[]): Promise<InboxItemView[]> {
  const cards = new Map((await rowsByIds(q, 'cards', [...new Set(rows.map((r) => r.card_id))])).map((c) => [c.id, c]))
  const boards = new Map((await getBoards(q, [...new Set([...cards.values()].map((c) => c.board_id))])).map((b) => [b.id, b]))
  return rows.map((r) => {
    const card = cards.get(r.card_id)!
    return {
      id: r.id,
      kind: r.kind,
      card: { id: card.id, key: card.key, title: card.title, url: cardUrl(config, card.id) },
      board: { id: card.board_id, name: boards.get(card.board_id)?.name ?? '' },
      comment: r.comment_id,
      question: r.question_id,
      actor: fromJsonColumn(InboxItemSchema.shape.actor, r.actor),
      read: r.read_at !== null,
      read_at: r.read_at,
      created: r.created_at,
    }
  })
}
