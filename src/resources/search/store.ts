// Search queries: the index's count and page (src/db/full-text.ts), and what a page's results show of their records.
import type { Q } from '../../db/database.js'
import { mergeSearchIndexStep, searchQueries, type SearchRequest } from '../../db/full-text.js'

export { mergeSearchIndexStep, searchQueries, type SearchRequest }

/** The cards with these ids: key, title, board and whether they are in the trash. */
export const cardRefs = async (q: Q, ids: readonly string[]) =>
  ids.length === 0
    ? []
    : q
        .selectFrom('cards')
        .select(['id', 'key', 'title', 'board_id', 'trashed'])
        .where('id', 'in', [...new Set(ids)])
        .execute()

/** The comments with these ids: their card. */
export const commentCards = async (q: Q, ids: readonly string[]) =>
  ids.length === 0
    ? []
    : q
        .selectFrom('comments')
        .select(['id', 'card_id'])
        .where('id', 'in', [...new Set(ids)])
        .execute()

/** The notes with these ids: title, board and card. */
export const noteRefs = async (q: Q, ids: readonly string[]) =>
  ids.length === 0
    ? []
    : q
        .selectFrom('notes')
        .select(['id', 'title', 'board_id', 'card_id'])
        .where('id', 'in', [...new Set(ids)])
        .execute()
