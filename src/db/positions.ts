// Positions of ordered rows (cards in a list, lists on a board, checklists on a card, items in a checklist): finite, and distinct within their scope.
import { type CompiledQuery, sql } from 'kysely'
import type { Q } from './database.js'
import { type Late, LateNumber, lateSlot } from './late.js'
import { lockRows } from './dialect.js'
import { firstOf, fixedQuery } from './sql.js'

/** Each ordered table, the column naming its scope, and the table of the scope's own row. */
const SCOPE = {
  cards: { column: 'list_id', parent: 'lists' },
  lists: { column: 'board_id', parent: 'boards' },
  checklists: { column: 'card_id', parent: 'cards' },
  checklist_items: { column: 'checklist_id', parent: 'checklists' },
} as const
export type Ordered = keyof typeof SCOPE

/** The last position in a scope but the row's own (a card create asks this every time: compiled once). */
const lastPosition = Object.fromEntries(
  (Object.keys(SCOPE) as Ordered[]).map((table) => [
    table,
    fixedQuery((q: Q, scopeId: string, selfId: string) =>
      q
        .selectFrom(table as 'cards')
        .select((eb) => eb.fn.max('position').as('p'))
        .where(SCOPE[table].column as 'list_id', '=', scopeId)
        .where('id', '<>', selfId),
    ),
  ]),
) as Record<Ordered, (q: Q, scopeId: string, selfId: string) => CompiledQuery<{ p: number | null }>>

const CARD_AT_END = lateSlot('taskd.late_position', 'double precision')
/**
 * A card's place one past the last of its list, taken late (src/db/late.ts, PostgreSQL), after the list's row is locked
 * (a statement of its own before it, so that this one sees the card of the create that held the lock). Where one past
 * the last leaves no room (gapAt's rule, written in SQL: near 1e308) the setting is empty, the statement that writes the card fails, and the create
 * runs again taking its place at once (distinctPosition then renumbers).
 */
const lateCardAtEnd = (q: Q, listId: string, selfId: string) =>
  sql`SELECT set_config(${CARD_AT_END.setting}, (CASE WHEN m IS NULL THEN 1 WHEN m + 1 - m >= GREATEST(abs(m + 1) * 2::float8 ^ -48, 1e-12) THEN m + 1 END)::text, true) AS position
    FROM (SELECT MAX(position) AS m FROM cards WHERE list_id = ${listId} AND id <> ${selfId}) AS last`.compile(q)

/** Two positions closer than this (relative to their size: 16 units in the last place) leave no room between them. */
const gapAt = (p: number) => Math.max(Math.abs(p) * 2 ** -48, 1e-12)

/**
 * The position a row takes in a scope (a list's cards, a board's lists, ...): `wanted`, or after the last row when it is
 * undefined. The scope's own row is locked first (PostgreSQL; SQLite has one writer anyway), so rows placed at once in
 * one scope take turns and never get the same position. When `wanted` lands on another row's position or too near it,
 * the other rows are renumbered 2, 4, 6, ... in their order, in one statement (rows already there are not written),
 * and the row takes the odd slot just before the first row at or after `wanted` (or after the last, when appending has
 * run out of room near 1e308). Their order never changes; positions stay finite and distinct.
 */
export async function distinctPosition(q: Q, table: Ordered, scopeId: string, selfId: string, asked?: number, late?: Late): Promise<number> {
  const { column, parent } = SCOPE[table]
  await lockRows(q, q.selectFrom(parent).select('id').where('id', '=', scopeId))
  const t = sql.table(table)
  const scope = sql.ref(column)
  const atEnd = asked === undefined
  if (atEnd && late && table === 'cards' && (await late.take(q, lateCardAtEnd(q, scopeId, selfId), { position: CARD_AT_END })))
    return new LateNumber(CARD_AT_END) as unknown as number
  let wanted = asked ?? 1
  if (atEnd) {
    const last = (await firstOf(q, lastPosition[table](q, scopeId, selfId)))?.p ?? null
    if (last === null) return 1
    // The common case: one past the last row leaves room, so nothing can be near it.
    if (last + 1 - last >= gapAt(last + 1)) return last + 1
    wanted = last + 1
  }
  const gap = gapAt(wanted)
  const near = await sql`
    SELECT 1 FROM ${t} WHERE ${scope} = ${scopeId} AND id <> ${selfId} AND position >= ${wanted - gap} AND position <= ${wanted + gap} LIMIT 1`.execute(q)
  if (!atEnd && near.rows.length === 0) return wanted
  const before = await sql<{ n: number }>`
    SELECT count(*) AS n FROM ${t} WHERE ${scope} = ${scopeId} AND id <> ${selfId} AND (${atEnd ? 1 : 0} = 1 OR position < ${wanted})`.execute(q)
  await sql`
    UPDATE ${t} SET position = r.rn * 2
    FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY position, created_at, id) AS rn FROM ${t} WHERE ${scope} = ${scopeId} AND id <> ${selfId}) AS r
    WHERE ${t}.id = r.id AND ${t}.position <> r.rn * 2`.execute(q)
  return Number(before.rows[0].n) * 2 + 1
}

/**
 * Positions for `count` rows appended in one go after the last row of a scope (a cascade moving a chunk of cards):
 * last + 1, last + 2, ... in the rows' order, with the scope's row locked as distinctPosition does. Undefined when
 * those are not distinct (positions near 1e308): the caller then places the rows one by one with distinctPosition.
 */
export async function appendedPositions(q: Q, table: Ordered, scopeId: string, count: number): Promise<number[] | undefined> {
  await lockRows(q, q.selectFrom(SCOPE[table].parent).select('id').where('id', '=', scopeId))
  const last = (await firstOf(q, lastPosition[table](q, scopeId, '')))?.p ?? 0
  if (last + count - (last + count - 1) < gapAt(last + count)) return undefined
  return Array.from({ length: count }, (_, i) => last + i + 1)
}
