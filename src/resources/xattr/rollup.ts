// Rollups: a number field of related cards folded into one value (sum, avg, min, max, count), computed on read.
import type { Q } from '../../db/database.js'
import type { ROLLUP_FNS, ROLLUP_OVER } from './schema.js'

export type RollupOver = (typeof ROLLUP_OVER)[number]
export type RollupFn = (typeof ROLLUP_FNS)[number]

/** What a rollup folds, per card and source field: how many related cards have a value, and their sum, min and max. */
export interface RollupAggregate {
  n: number
  sum: number
  min: number
  max: number
}

/**
 * The aggregates each card's rollups read, by `over`, for a whole page: one grouped query per kind, whatever the
 * page's or the milestone's size (the database folds the related cards; none of them comes back one by one).
 * - `subtasks`: the cards whose parent is the card (`cards.parent_id`).
 * - `milestone`: the other cards of the card's milestone (`cards.milestone_id`); a card with no milestone has none.
 * Trashed cards are left out; archived ones count (they are still part of the work). Keyed `<card id>\u0000<field id>`.
 */
export async function rollupAggregates(q: Q, over: RollupOver, cardIds: readonly string[], fieldIds: readonly string[]): Promise<Map<string, RollupAggregate>> {
  const out = new Map<string, RollupAggregate>()
  if (cardIds.length === 0 || fieldIds.length === 0) return out
  const ids = [...new Set(cardIds)]
  const fields = [...new Set(fieldIds)]
  const rows =
    over === 'subtasks'
      ? await q
          .selectFrom('cards as o')
          .innerJoin('card_xattr as x', 'x.card_id', 'o.id')
          .select((eb) => [
            'o.parent_id as card',
            'x.field_id as field',
            eb.fn.count<number>('x.num').as('n'),
            eb.fn.sum<number>('x.num').as('sum'),
            eb.fn.min<number>('x.num').as('min'),
            eb.fn.max<number>('x.num').as('max'),
          ])
          .where('o.parent_id', 'in', ids)
          .where('o.trashed', '=', 0)
          .where('x.field_id', 'in', fields)
          .where('x.num', 'is not', null)
          .groupBy(['o.parent_id', 'x.field_id'])
          .execute()
      : await q
          .selectFrom('cards as c')
          .innerJoin('cards as o', (j) => j.onRef('o.milestone_id', '=', 'c.milestone_id').onRef('o.id', '<>', 'c.id'))
          .innerJoin('card_xattr as x', 'x.card_id', 'o.id')
          .select((eb) => [
            'c.id as card',
            'x.field_id as field',
            eb.fn.count<number>('x.num').as('n'),
            eb.fn.sum<number>('x.num').as('sum'),
            eb.fn.min<number>('x.num').as('min'),
            eb.fn.max<number>('x.num').as('max'),
          ])
          .where('c.id', 'in', ids)
          .where('o.trashed', '=', 0)
          .where('x.field_id', 'in', fields)
          .where('x.num', 'is not', null)
          .groupBy(['c.id', 'x.field_id'])
          .execute()
  for (const r of rows)
    if (r.card !== null) out.set(`${r.card}\u0000${r.field}`, { n: Number(r.n), sum: Number(r.sum), min: Number(r.min), max: Number(r.max) })
  return out
}

/** One rollup value from its aggregate. With no values to fold, `count` is 0 and every other function has no value. */
export function rollupOf(fn: RollupFn, a: RollupAggregate | undefined): number | null {
  if (fn === 'count') return a?.n ?? 0
  if (!a || a.n === 0) return null
  switch (fn) {
    case 'sum':
      return a.sum
    case 'avg':
      return a.sum / a.n
    case 'min':
      return a.min
    case 'max':
      return a.max
  }
}
