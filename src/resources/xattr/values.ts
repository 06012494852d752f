// A card's custom field values: read for a page of cards (`xattr` on every card view, batched: no N+1), and checked and
// written by card create, PATCH and bulk-update-cards. The cards family calls these in its own transaction.
import type { Q } from '../../db/database.js'
import type { CardXattrTable, XattrFieldsTable, XattrOptionsTable } from '../../db/types.js'
import type { ErrorDetail } from '../../errors.js'
import { memberRoles } from '../boards/published.js'
import { evaluateFormula, parseFormula, type FormulaNode } from './formula.js'
import { groupBy, parseRollup } from './present.js'
import { rollupAggregates, rollupOf, type RollupAggregate, type RollupOver } from './rollup.js'
import { COMPUTED_TYPES, type XattrType } from './schema.js'
import { clearValues, fieldsOfBoards, insertValues, optionsOfFields, setValues, valuesOf, valuesOfCards } from './store.js'

export type XattrValues = Record<string, unknown>

const DAY = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

/** A stored row's value as the API shows it. */
function shown(type: string, rows: readonly CardXattrTable[]): unknown {
  if (type === 'multi_select') return rows.map((r) => r.str)
  const r = rows[0]
  if (type === 'number') return r.num
  if (type === 'boolean') return r.num === 1
  return r.str
}

/** Parsed formulas by their text: each is parsed once per process (they were checked when saved). */
const parsedFormulas = new Map<string, FormulaNode | null>()
function formulaOf(text: string): FormulaNode | null {
  let node = parsedFormulas.get(text)
  if (node === undefined) {
    try {
      node = parseFormula(text, () => undefined)
    } catch {
      node = null
    }
    if (parsedFormulas.size > 1000) parsedFormulas.clear()
    parsedFormulas.set(text, node)
  }
  return node
}

/**
 * `xattr` of each card of a page: its board's fields with a value, by key, rollups and formulas computed. A fixed
 * number of queries for the page: the boards' fields and the cards' values (read at once), and for rollups one grouped query per kind that folds the related cards' values.
 */
export async function xattrOfCards(q: Q, cards: readonly { id: string; board_id: string }[]): Promise<Map<string, XattrValues>> {
  const out = new Map<string, XattrValues>(cards.map((c) => [c.id, {}]))
  // The fields and the values are read at once (beside the page's other reads on PostgreSQL: one message, not two).
  const [fields, values] = await Promise.all([
    fieldsOfBoards(
      q,
      cards.map((c) => c.board_id),
    ),
    valuesOfCards(
      q,
      cards.map((c) => c.id),
    ),
  ])
  if (fields.length === 0) return out
  const byBoard = groupBy(fields, (f) => f.board_id)
  const fieldById = new Map(fields.map((f) => [f.id, f]))
  const rows = groupBy(values, (r) => `${r.card_id}\u0000${r.field_id}`)
  // Rollups: folded by the database, one grouped query per kind (subtasks, milestone) for the whole page.
  const rollups = fields.flatMap((f) => {
    const r = f.type === 'rollup' ? parseRollup(f.rollup) : null
    const source = r && byBoard.get(f.board_id)?.find((s) => s.key === r.field && s.type === 'number')
    return r && source ? [{ field: f, over: r.over as RollupOver, fn: r.fn, source }] : []
  })
  const aggregates = new Map<RollupOver, Map<string, RollupAggregate>>()
  for (const over of new Set(rollups.map((r) => r.over)))
    aggregates.set(
      over,
      await rollupAggregates(
        q,
        over,
        cards.map((c) => c.id),
        rollups.filter((r) => r.over === over).map((r) => r.source.id),
      ),
    )
  for (const card of cards) {
    const values = out.get(card.id)!
    const numbers = new Map<string, number>()
    const boardFields = byBoard.get(card.board_id) ?? []
    for (const f of boardFields) {
      if (COMPUTED_TYPES.includes(f.type as XattrType)) continue
      const own = rows.get(`${card.id}\u0000${f.id}`)
      if (!own || !fieldById.has(f.id)) continue
      const v = shown(f.type, own)
      values[f.key] = v
      if (f.type === 'number' && typeof v === 'number') numbers.set(f.key, v)
    }
    for (const r of rollups.filter((r) => r.field.board_id === card.board_id)) {
      const v = rollupOf(r.fn, aggregates.get(r.over)?.get(`${card.id}\u0000${r.source.id}`))
      if (v !== null) {
        values[r.field.key] = v
        numbers.set(r.field.key, v)
      }
    }
    for (const f of boardFields) {
      if (f.type !== 'formula' || f.formula === null) continue
      const node = formulaOf(f.formula)
      const v = node && evaluateFormula(node, numbers)
      if (v !== null && v !== undefined) values[f.key] = v
    }
  }
  return out
}

/** Rows to store for one value, or the reason it is refused. */
type Parsed = { rows: Omit<CardXattrTable, 'card_id' | 'field_id'>[]; users?: string[] } | { error: string }

function parseValue(f: XattrFieldsTable, options: readonly XattrOptionsTable[], value: unknown): Parsed {
  const one = (num: number | null, str: string | null) => ({ rows: [{ seq: 0, num, str }] })
  const option = (v: unknown): string | undefined => {
    if (typeof v !== 'string') return undefined
    const folded = v.toLowerCase()
    return (options.find((o) => o.id === v) ?? options.find((o) => o.name.toLowerCase() === folded))?.id
  }
  switch (f.type as XattrType) {
    case 'text':
      if (typeof value !== 'string') return { error: 'must be a string.' }
      if (value.length > 10_000) return { error: 'must be at most 10,000 characters.' }
      return one(null, value)
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return { error: 'must be a number.' }
      return one(value === 0 ? 0 : value, null)
    case 'boolean':
      if (typeof value !== 'boolean') return { error: 'must be true or false.' }
      return one(value ? 1 : 0, null)
    case 'date': {
      if (typeof value !== 'string' || !(DAY.test(value) || DATE_TIME.test(value))) return { error: 'must be a date, `YYYY-MM-DD` or ISO 8601.' }
      const t = new Date(DAY.test(value) ? `${value}T00:00:00Z` : value)
      if (Number.isNaN(t.getTime()) || t.getUTCFullYear() < 0 || t.getUTCFullYear() > 9999 || (DAY.test(value) && t.toISOString().slice(0, 10) !== value))
        return { error: 'must be a real date between the years 0000 and 9999.' }
      return one(null, DAY.test(value) ? value : t.toISOString())
    }
    case 'url': {
      if (typeof value !== 'string' || value.length > 2048) return { error: 'must be an http or https URL of at most 2,048 characters.' }
      let u: URL
      try {
        u = new URL(value)
      } catch {
        return { error: 'must be an http or https URL.' }
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: 'must be an http or https URL.' }
      return one(null, value)
    }
    case 'user':
      if (typeof value !== 'string' || value.length === 0 || value.length > 100) return { error: 'must be the id of a member of the board.' }
      return { ...one(null, value), users: [value] }
    case 'select': {
      const id = option(value)
      if (!id) return { error: `must be one of the field's options (by id or name).` }
      return one(null, id)
    }
    case 'multi_select': {
      if (!Array.isArray(value) || value.length > 100) return { error: "must be a list of the field's options (by id or name), at most 100." }
      const ids: string[] = []
      for (const v of value) {
        const id = option(v)
        if (!id) return { error: `must list only the field's options (by id or name); ${JSON.stringify(v)?.slice(0, 60)} is none.` }
        if (!ids.includes(id)) ids.push(id)
      }
      return { rows: ids.map((str, seq) => ({ seq, num: null, str })) }
    }
    default:
      return { error: 'is computed on read (rollup or formula) and cannot be written.' }
  }
}

const sameRows = (a: readonly { num: number | null; str: string | null }[], b: readonly { num: number | null; str: string | null }[]) =>
  a.length === b.length && a.every((r, i) => r.num === b[i].num && r.str === b[i].str)

/**
 * `input` checked against a board's fields: the rows each named field is to hold (none: cleared), by field id. Every
 * problem is pushed to `details` (see writeCardXattr).
 */
async function parsedValues(
  q: Q,
  boardId: string,
  fields: readonly XattrFieldsTable[],
  input: XattrValues | undefined,
  required: readonly XattrFieldsTable[],
  details: ErrorDetail[],
): Promise<Map<string, Omit<CardXattrTable, 'card_id' | 'field_id'>[]>> {
  const byKey = new Map(fields.map((f) => [f.key, f]))
  const entries = Object.entries(input ?? {})
  const named = entries.flatMap(([k]) => byKey.get(k) ?? [])
  const options = groupBy(
    await optionsOfFields(
      q,
      named.filter((f) => f.type === 'select' || f.type === 'multi_select').map((f) => f.id),
    ),
    (o) => o.field_id,
  )
  const next = new Map<string, Omit<CardXattrTable, 'card_id' | 'field_id'>[]>()
  const users = new Map<string, string>()
  for (const [key, value] of entries) {
    const path = `xattr.${key.length > 80 ? `${key.slice(0, 80)}…` : key}`
    const f = byKey.get(key)
    if (!f) {
      details.push({ path, message: `${path}: no custom field with this key on the board.` })
      continue
    }
    if (value === null) {
      if (COMPUTED_TYPES.includes(f.type as XattrType))
        details.push({ path, message: `${path} is computed on read (rollup or formula) and cannot be written.` })
      else if (f.required === 1) details.push({ path, message: `${path} is required and cannot be cleared.` })
      else next.set(f.id, [])
      continue
    }
    const parsed = parseValue(f, options.get(f.id) ?? [], value)
    if ('error' in parsed) details.push({ path, message: `${path} ${parsed.error}` })
    else {
      next.set(f.id, parsed.rows)
      for (const u of parsed.users ?? []) users.set(u, path)
    }
  }
  for (const f of required)
    if (!next.get(f.id)?.length && !details.some((d) => d.path === `xattr.${f.key}`))
      details.push({ path: `xattr.${f.key}`, message: `xattr.${f.key} is required.` })
  if (users.size) {
    const members = await memberRoles(q, boardId, [...users.keys()])
    for (const [u, path] of users) if (!members.has(u)) details.push({ path, message: `${path} must be the id of a member of the board.` })
  }
  return next
}

/** A change of custom field values checked once for a board's cards (checkXattrChange), to write to many (writeXattrChange). */
export interface XattrChange {
  next: Map<string, Omit<CardXattrTable, 'card_id' | 'field_id'>[]>
  keyOf: Map<string, string>
}

/**
 * Checks a change of custom field values for the cards of a board (a bulk update) as writeCardXattr checks it for one
 * card's PATCH, once: the problems go to `details`.
 */
export async function checkXattrChange(q: Q, boardId: string, input: XattrValues, details: ErrorDetail[]): Promise<XattrChange> {
  const fields = await fieldsOfBoards(q, [boardId])
  const next = await parsedValues(q, boardId, fields, input, [], details)
  return { next, keyOf: new Map(fields.map((f) => [f.id, f.key])) }
}

/**
 * Writes a checked change (checkXattrChange) to cards of its board: on each card the values that differ, with one
 * read of what they hold, one DELETE per field and one INSERT. Returns each card's changed keys, in the order one
 * card's change names them (writeCardXattr).
 */
export async function writeXattrChange(q: Q, change: XattrChange, cardIds: readonly string[]): Promise<Map<string, string[]>> {
  const keys = new Map<string, string[]>()
  if (change.next.size === 0 || cardIds.length === 0) return keys
  const before = groupBy(await valuesOf(q, [...change.next.keys()], cardIds), (r) => `${r.card_id}\u0000${r.field_id}`)
  for (const rows of before.values()) rows.sort((a, b) => a.seq - b.seq)
  const cardsOf = new Map<string, string[]>()
  const rows: CardXattrTable[] = []
  for (const card of cardIds)
    for (const [field_id, next] of change.next) {
      if (sameRows(before.get(`${card}\u0000${field_id}`) ?? [], next)) continue
      const holders = cardsOf.get(field_id)
      if (holders) holders.push(card)
      else cardsOf.set(field_id, [card])
      rows.push(...next.map((r) => ({ ...r, card_id: card, field_id })))
      const named = keys.get(card)
      if (named) named.push(change.keyOf.get(field_id)!)
      else keys.set(card, [change.keyOf.get(field_id)!])
    }
  for (const [field, cards] of cardsOf) await clearValues(q, field, cards)
  await insertValues(q, rows)
  return keys
}

/**
 * Checks `input` against the board's fields and writes what changed on the card; returns the changed keys (and whether
 * the board has custom fields at all, so a new card of a board without any needs no read of its values). Every
 * problem is a 422 detail naming `xattr.<key>`: an unknown key, a computed field, a wrong type, an unknown option, a
 * user who is not a board member, a bad date or URL, and (`creating`, or a null on PATCH) a required field left empty.
 * `details` collects the problems; nothing is written when there are any.
 */
export async function writeCardXattr(
  q: Q,
  card: { id: string; board_id: string },
  input: XattrValues | undefined,
  creating: boolean,
  details: ErrorDetail[],
  /** The board's fields, when the caller read them already. */
  known?: readonly XattrFieldsTable[],
): Promise<{ keys: string[]; boardHasFields: boolean }> {
  const fields = known ?? (await fieldsOfBoards(q, [card.board_id]))
  const none = { keys: [], boardHasFields: fields.length > 0 }
  const required = creating ? fields.filter((f) => f.required === 1 && !COMPUTED_TYPES.includes(f.type as XattrType)) : []
  if (!input && required.length === 0) return none
  const next = await parsedValues(q, card.board_id, fields, input, required, details)
  if (details.length || next.size === 0) return none
  const before = groupBy(creating ? [] : await valuesOf(q, [...next.keys()], [card.id]), (r) => r.field_id)
  for (const rows of before.values()) rows.sort((a, b) => a.seq - b.seq)
  const changed = [...next].filter(([id, rows]) => !sameRows(before.get(id) ?? [], rows))
  if (changed.length === 0) return none
  await setValues(
    q,
    card.id,
    changed.map(([id]) => id),
    changed.flatMap(([field_id, rows]) => rows.map((r) => ({ ...r, card_id: card.id, field_id }))),
  )
  const keyOf = new Map(fields.map((f) => [f.id, f.key]))
  return { keys: changed.map(([id]) => keyOf.get(id)!), boardHasFields: true }
}
