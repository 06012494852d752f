// Rollups: a number field of related cards folded into one value (sum, avg, min, max, count), computed on read.
import type { Q } from '../../db/database.js'
import type { ROLLUP_FNS, ROLLUP_OVER } from './schema.js'

export type RollupOver = (typeof ROLLUP_OVER)[number]
export type RollupFn = (typeof ROLLUP_FNS)[number]

/**
 * The cards each card's rollups read, by `over`, for a whole page: one query per kind, whatever the page's size.
 * - `subtasks`: the cards whose parent is the card (`cards.parent_id`).
 * - `milestone`: the other cards of the card's milestone (`cards.milestone_id`); a card with no milestone has none.
 * Trashed cards are left out; archived ones count (they are still part of the work).
 */
export async function relatedCards(q: Q, over: RollupOver, cardIds: readonly string[]): Promise<Map<string, string[]>> {
  const related = new Map<string, string[]>()
  for (const id of cardIds) related.set(id, [])
  if (cardIds.length === 0) return related
  const ids = [...new Set(cardIds)]
  const rows =
    over === 'subtasks'
      ? await q
          .selectFrom('cards')
          .select(['cards.parent_id as card', 'cards.id as id'])
          .where('cards.parent_id', 'in', ids)
          .where('cards.trashed', '=', 0)
          .orderBy('cards.id')
          .execute()
      : await q
          .selectFrom('cards as c')
          .innerJoin('cards as o', (j) => j.onRef('o.milestone_id', '=', 'c.milestone_id').onRef('o.id', '<>', 'c.id'))
          .select(['c.id as card', 'o.id as id'])
          .where('c.id', 'in', ids)
          .where('o.trashed', '=', 0)
          .orderBy('o.id')
          .execute()
  for (const r of rows) if (r.card !== null) related.get(r.card)?.push(r.id)
  return related
}

/**
 * One rollup value from the related cards' numbers (a card without a value is left out). With no numbers to fold,
 * `count` is 0 and every other function has no value (null).
 */
export function rollupOf(fn: RollupFn, values: readonly number[]): number | null {
  switch (fn) {
    case 'count':
      return values.length
    case 'sum':
      return values.length ? values.reduce((a, b) => a + b, 0) : null
    case 'avg':
      return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null
    case 'min':
      return values.length ? Math.min(...values) : null
    case 'max':
      return values.length ? Math.max(...values) : null
  }
}
