// Rollups: a number field of related cards folded into one value (sum, avg, min, max, count), computed on read.
import type { Q } from '../../db/database.js'
import type { ROLLUP_FNS, ROLLUP_OVER } from './schema.js'

export type RollupOver = (typeof ROLLUP_OVER)[number]
export type RollupFn = (typeof ROLLUP_FNS)[number]

/**
 * The cards each card's rollups read, by `over`, for a whole page: one query per kind.
 * - `subtasks`: the cards whose parent is the card (`cards.parent_id`, added by the sub-tasks migration).
 * - `milestone`: the other cards of the card's milestone (`cards.milestone_id`, added by the milestones migration).
 * Neither column exists on this branch yet, so both answer no related cards (sum 0, count 0, the others null) until
 * the two queries are written here after those migrations are merged.
 */
export async function relatedCards(_q: Q, over: RollupOver, cardIds: readonly string[]): Promise<Map<string, string[]>> {
  const related = new Map<string, string[]>()
  for (const id of cardIds) related.set(id, [])
  switch (over) {
    case 'subtasks':
      // After the merge: SELECT parent_id, id FROM cards WHERE parent_id IN (cardIds) AND trashed = 0
      return related
    case 'milestone':
      // After the merge: SELECT c.id AS card, o.id FROM cards c JOIN cards o ON o.milestone_id = c.milestone_id AND o.id <> c.id
      //   WHERE c.id IN (cardIds) AND o.trashed = 0
      return related
  }
}

/** One rollup value from the related cards' numbers (a card without a value is left out). */
export function rollupOf(fn: RollupFn, values: readonly number[]): number | null {
  switch (fn) {
    case 'count':
      return values.length
    case 'sum':
      return values.reduce((a, b) => a + b, 0)
    case 'avg':
      return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null
    case 'min':
      return values.length ? Math.min(...values) : null
    case 'max':
      return values.length ? Math.max(...values) : null
  }
}
