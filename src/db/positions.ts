// Positions of ordered rows (cards in a list, lists on a board): finite, and distinct within their scope.
import { sql } from 'kysely'
import type { Q } from './database.js'

const SCOPE = { cards: 'list_id', lists: 'board_id' } as const
export type Ordered = keyof typeof SCOPE

/** Two positions closer than this (relative to their size) leave no room between them: the scope is renumbered. */
const MIN_GAP = 1e-9

/**
 * The position a row takes when it asks for `wanted` in a scope (a list's cards, a board's lists). Usually `wanted`.
 * When `wanted` lands on another row's position or too near it, all the other rows of the scope are renumbered 2, 4, 6,
 * ... in their order, in one statement, and the row takes the odd slot just before the first row that was at or after
 * `wanted` (or, with `atEnd`, after the last: `wanted` was max + 1, which stops growing near 1e308). The order of the
 * others never changes, and positions stay finite and distinct.
 */
export async function distinctPosition(q: Q, table: Ordered, scopeId: string, selfId: string, wanted: number, atEnd = false): Promise<number> {
  const t = sql.table(table)
  const scope = sql.ref(SCOPE[table])
  const gap = Math.max(Math.abs(wanted) * MIN_GAP, MIN_GAP)
  // max + 1 clearly past the last row: nothing can be near it (the common case, without a query).
  if (atEnd && Number.isFinite(wanted) && wanted - 1 < wanted - gap) return wanted
  const near = await sql<{ n: number }>`
    SELECT 1 AS n FROM ${t} WHERE ${scope} = ${scopeId} AND id <> ${selfId} AND position >= ${wanted - gap} AND position <= ${wanted + gap} LIMIT 1`.execute(q)
  if (Number.isFinite(wanted) && near.rows.length === 0) return wanted
  const before = await sql<{ n: number }>`
    SELECT count(*) AS n FROM ${t} WHERE ${scope} = ${scopeId} AND id <> ${selfId} AND (${atEnd ? 1 : 0} = 1 OR position < ${wanted})`.execute(q)
  await sql`
    UPDATE ${t} SET position = r.rn * 2
    FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY position, created_at, id) AS rn FROM ${t} WHERE ${scope} = ${scopeId} AND id <> ${selfId}) AS r
    WHERE ${t}.id = r.id`.execute(q)
  return Number(before.rows[0].n) * 2 + 1
}
