// FilterNode → Kysely boolean expression. Every value is a bound parameter; every identifier comes from a field map.
import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely'
import type { CompareOp, Comparison, FilterNode, FilterValue } from './ast.js'
import { parseDateLiteral } from './dates.js'
import { filterResource, memberHop, resolveField, type Hop, type MultiField, type ScalarField } from './fields.js'
import { FilterError } from './error.js'

type Cond = Expression<SqlBool>

/** SQL spelling of the operators that map one to one; `~`/`!~` and dates are handled separately. */
export const SQL_OP: Partial<Record<CompareOp, RawBuilder<unknown>>> = {
  '=': sql.raw('='),
  '!=': sql.raw('!='),
  '>': sql.raw('>'),
  '>=': sql.raw('>='),
  '<': sql.raw('<'),
  '<=': sql.raw('<='),
}

/** Equalities on these fields pick few rows through an index: membership tests beside them should only probe. */
const ANCHORS = new Set(['id', 'key', 'board', 'list'])
const anchors = (n: FilterNode) => n.kind === 'compare' && n.op === '=' && n.value !== null && ANCHORS.has(n.field)
/** The board an AND of comparisons pins its rows to (`board = "…"`), if any. */
const boardOf = (items: readonly FilterNode[]) =>
  items.find((i): i is Comparison => i.kind === 'compare' && i.field === 'board' && i.op === '=' && typeof i.value === 'string')?.value as string | undefined

/**
 * The comparisons of `node` must already have passed comparisonCheck for this resource (filterExpression does both).
 * `anchored`: the caller already narrows the rows by an indexed equality (e.g. the `board` query parameter).
 */
export function compileFilter(eb: ExpressionBuilder<any, any>, resource: string, node: FilterNode, anchored = false): Cond {
  const table = filterResource(resource).table
  // `board`: the board every row this node can match is on (an enclosing AND has `board = "…"`).
  const walk = (n: FilterNode, anchored: boolean, board: string | undefined): Cond => {
    switch (n.kind) {
      case 'and': {
        const inner = anchored || n.items.some(anchors)
        const pinned = board ?? boardOf(n.items)
        return eb.and(n.items.map((i) => walk(i, inner, pinned)))
      }
      case 'or':
        return eb.or(n.items.map((i) => walk(i, anchored, board)))
      case 'not':
        return eb.not(eb.parens(walk(n.item, anchored, board)))
      case 'compare':
        return comparison(resource, table, n, anchored, board)
    }
  }
  return walk(node, anchored, undefined)
}

/**
 * Identifiers come only from the field maps, never from the filter text, so they are written into the SQL as
 * quoted text: building one raw fragment per join instead of a tree of Kysely nodes keeps a 200-comparison
 * filter cheap to build. Values always stay bound parameters.
 */
const quote = (name: string) => (name.includes('"') ? `"${name.replaceAll('"', '""')}"` : `"${name}"`)
const colText = (alias: string, column: string) => `${quote(alias)}.${quote(column)}`
const ref = (alias: string, column: string) => sql.raw(colText(alias, column))
/** The value a scalar field compares: its column of the row aliased `alias`, or its computed expression over that row. */
const leafText = (alias: string, leaf: ScalarField) => (leaf.expression ? leaf.expression(quote(alias)) : colText(alias, leaf.column))
const leafRef = (alias: string, leaf: ScalarField) => sql.raw(leafText(alias, leaf))

function comparison(resource: string, table: string, n: Comparison, anchored: boolean, board: string | undefined): Cond {
  const r = resolveField(resource, n.field)
  if (typeof r === 'string') throw new FilterError(r) // only for a tree that skipped comparisonCheck
  const { hops, leaf } = r
  if (leaf.type === 'keyed') return leaf.compile({ key: r.key!, op: n.op, value: n.value, rowId: colText(table, 'id'), anchored, board })
  if (leaf.type === 'multi' && leaf.boardScoped && leaf.link && board !== undefined && hops.length === 0 && (n.op === '~' || n.op === '!~')) {
    // On one board: that board's members of this name or id, found once, then one probe of the row's links each.
    const { link } = leaf
    const members = `select ${colText('t1', 'id')} from ${quote(filterResource(leaf.target).table)} as "t1" where ${colText('t1', 'board_id')} = `
    const test = sql<SqlBool>`exists (select 1 from ${sql.raw(`${quote(link.table)} as "j1" where ${colText('j1', link.from)} = ${colText(table, 'id')} and ${colText('j1', link.to)} in (${members}`)}${board} and ${member(leaf, 1, n.value as string)}))`
    return n.op === '~' ? test : sql<SqlBool>`not ${test}`
  }
  if (!r.many && leaf.type !== 'multi') {
    if (hops.length === 0) return withKeyHistory(table, leaf, n) ?? scalar(leaf, n.op, n.value, leafRef(table, leaf))
    // A chain of to-one relations reads one value: a scalar subquery, null when a link is missing.
    const value = sql.raw(`(select ${leafText(`t${hops.length}`, leaf)} ${fromWhere(table, hops).correlated})`)
    return scalar(leaf, n.op, n.value, value)
  }
  // Through many rows, "!=" and "!~" mean "no such row": NOT EXISTS of the positive test.
  const negative = n.op === '!=' || n.op === '!~'
  const op: CompareOp = n.op === '!=' ? '=' : n.op === '!~' ? '~' : n.op
  let test: Cond
  let all = hops
  if (leaf.type === 'multi') {
    all = [...hops, memberHop(leaf)]
    test = member(leaf, all.length, n.value as string)
  } else {
    test = scalar(leaf, op, n.value, leafRef(`t${hops.length}`, leaf))
  }
  const from = fromWhere(table, all, leaf.type === 'multi' ? leaf : undefined)
  // A positive test on its own compiles to `<outer> IN (subquery)`, so SQLite can start from the link table's index
  // (`tags ~ "bug"` reads the bug cards, not every card). Beside an anchoring equality (`board = "…"`) it stays a
  // correlated EXISTS: SQLite guesses every IN list to be small, and would start from a large one instead of the
  // anchor (16 times slower for `board="…" && tags~"bug"` on 100,000 cards).
  if (!negative && !anchored) return sql<SqlBool>`${sql.raw(`${from.outer} in (select ${from.inner} ${from.uncorrelated} and `)}${test})`
  return sql<SqlBool>`${sql.raw(`${negative ? 'not ' : ''}exists (select 1 ${from.correlated} and `)}${test})`
}

/**
 * `from … join … where <first hop joined to the outer row>`, as SQL text. Hop k is aliased t<k> (its link table
 * j<k>), so nested paths never clash with each other or with the outer table. A membership test by id through a
 * link table needs only the link table.
 */
function fromWhere(table: string, hops: Hop[], membership?: MultiField) {
  const parts: { src: string; on: string }[] = []
  const as = (name: string, alias: string) => `${quote(name)} as ${quote(alias)}`
  let outer = '',
    inner = ''
  hops.forEach((h, i) => {
    const k = i + 1
    const prev = k === 1 ? table : `t${k - 1}`
    const t = `t${k}`
    let pair: [string, string]
    if (h.kind === 'one') pair = [colText(t, 'id'), colText(prev, h.fk)]
    else if (h.kind === 'back') pair = [colText(t, h.back), colText(prev, 'id')]
    else pair = [colText(`j${k}`, h.link.from), colText(prev, 'id')]
    parts.push({ src: h.kind === 'link' ? as(h.link.table, `j${k}`) : as(h.table, t), on: `${pair[0]} = ${pair[1]}` })
    if (h.kind === 'link') {
      const linkOnly = membership && k === hops.length && !membership.byName
      if (!linkOnly) parts.push({ src: as(h.table, t), on: `${colText(t, 'id')} = ${colText(`j${k}`, h.link.to)}` })
    }
    if (k === 1) [inner, outer] = pair
  })
  const [first, ...rest] = parts
  const from = `from ${first.src}${rest.map((p) => ` join ${p.src} on ${p.on}`).join('')}`
  return { outer, inner, correlated: `${from} where ${first.on}`, uncorrelated: `${from} where ${inner} is not null` }
}

/**
 * `key = "OLD-3"` finds the card that was OLD-3 before its board's prefix changed: the current key, or the number under
 * any prefix ever reserved for the row's board, as long as that number was given before the board left the prefix (a
 * card numbered after the change never had the old key). Undefined when the field keeps no history or the value is no key.
 */
function withKeyHistory(table: string, f: ScalarField, n: Comparison): Cond | undefined {
  const h = f.keyHistory
  const parts = typeof n.value === 'string' ? /^([A-Za-z][A-Za-z0-9]*)-([0-9]{1,15})$/.exec(n.value) : null
  if (!h || !parts || (n.op !== '=' && n.op !== '!=')) return undefined
  const num = Number(parts[2])
  const test = sql<SqlBool>`(${ref(table, f.column)} = ${n.value} or (${ref(table, h.num)} = ${num} and ${ref(table, h.owner)} in (select ${sql.raw(quote(h.owner))} from ${sql.raw(quote(h.prefixes))} where ${sql.raw(quote('prefix'))} = ${parts[1].toUpperCase()} and (${sql.raw(quote(h.last))} is null or ${sql.raw(quote(h.last))} >= ${num}))))`
  return n.op === '=' ? test : sql<SqlBool>`not ${test}`
}

/**
 * Case-insensitive text: ASCII text through lower(), which the name indexes serve; other text through taskd_fold,
 * Unicode case folding on both dialects (`title ~ "école"` finds "ÉCOLE").
 */
const fold = (text: string) => sql.raw(/^[\x00-\x7f]*$/.test(text) ? 'lower' : 'taskd_fold')

function member(f: MultiField, k: number, value: string): Cond {
  if (f.byName) return sql<SqlBool>`(${ref(`t${k}`, 'id')} = ${value} or ${fold(value)}(${ref(`t${k}`, 'name')}) = ${fold(value)}(${value}))`
  if (f.link) return sql<SqlBool>`${ref(`j${k}`, f.link.to)} = ${value}`
  return sql<SqlBool>`${ref(`t${k}`, 'id')} = ${value}`
}

function scalar(f: ScalarField, op: CompareOp, value: FilterValue, col: Expression<unknown>): Cond {
  if (value === null) return op === '=' ? sql<SqlBool>`${col} is null` : sql<SqlBool>`${col} is not null`
  if (f.type === 'text' && (op === '~' || op === '!~')) {
    // LIKE with the pattern's own characters escaped, the same in SQLite and PostgreSQL; both sides folded alike.
    const pattern = (value as string).replace(/[\\%_]/g, (c) => `\\${c}`)
    const f = fold(pattern)
    return sql<SqlBool>`${f}(${col}) ${sql.raw(op === '~' ? 'like' : 'not like')} '%' || ${f}(${pattern}) || '%' escape '\\'`
  }
  if (f.nocase) return sql<SqlBool>`${fold(String(value))}(${col}) ${SQL_OP[op]} ${fold(String(value))}(${value})`
  if (f.type === 'boolean') return sql<SqlBool>`${col} ${SQL_OP[op]} ${value ? 1 : 0}`
  if (f.type === 'date') return date(f, op, value as string, col)
  return sql<SqlBool>`${col} ${SQL_OP[op]} ${value}`
}

/**
 * Stored dates are ISO text, so text order is time order. A day literal is the range [day, next day), which also
 * holds a bare `YYYY-MM-DD` stored in due_date/start_date. An instant is compared with the stored value, where a
 * bare stored day counts as its midnight UTC.
 */
function date(f: ScalarField, op: CompareOp, value: string, col: Expression<unknown>): Cond {
  const lit = parseDateLiteral(value)
  if (!lit) throw new FilterError(`not a date: ${JSON.stringify(value)}`)
  if (lit.kind === 'day') {
    const { day, next } = lit
    switch (op) {
      case '=':
        return sql<SqlBool>`(${col} >= ${day} and ${col} < ${next})`
      case '!=':
        return sql<SqlBool>`(${col} < ${day} or ${col} >= ${next})`
      case '>':
        return sql<SqlBool>`${col} >= ${next}`
      case '>=':
        return sql<SqlBool>`${col} >= ${day}`
      case '<':
        return sql<SqlBool>`${col} < ${day}`
      default:
        return sql<SqlBool>`${col} < ${next}`
    }
  }
  const stored = f.mixed ? sql`(case when length(${col}) = 10 then ${col} || 'T00:00:00.000Z' else ${col} end)` : col
  return sql<SqlBool>`${stored} ${SQL_OP[op]} ${lit.iso}`
}
