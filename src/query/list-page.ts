// One list pipeline for every list route (and later MCP and n8n): filter + sort + page + expand, with the server total.
import { sql as rawSql, type SelectQueryBuilder } from 'kysely'
import { z } from 'zod'
import type { Db } from '../db/database.js'
import { applyFilter } from '../filter/index.js'
import { badRequest } from '../errors.js'

/** How a family's records are listed: its filter field map, sortable fields and expandable relations. */
export interface ListSpec {
  /** Filter field map (src/filter registry) and table name of the rows. */
  resource: string
  table: string
  /** Sort name → column, or columns that sort together (the first decides, the next break its ties). */
  sort: Readonly<Record<string, string | readonly string[]>>
  defaultSort: string
  expand: readonly string[]
  /** Sort names made of a prefix and a key the data decides (a card's custom fields: `xattr.<key>`). */
  keyed?: KeyedSortSpec
}

/** How a list sorts by `<prefix><key>`: see KeyedOrder. */
export interface KeyedSortSpec {
  /** The sort names' prefix, with its dot (`xattr.`). */
  prefix: string
  /** The order for `key`, or why there is none (answered 400). `board`: the one board listed, when known. */
  resolve: (db: Db, key: string, scope: { board?: string }) => Promise<KeyedOrder | string>
}

/**
 * A sort by a value kept in another table: the rows with a value (`valued`, joined so that `column` reads it) in its
 * order and `tie` after it, then the rows without one (`unvalued`) in the list's other order. Two index-served reads
 * instead of one sort of every match; a page that straddles the two reads from both.
 */
export interface KeyedOrder {
  column: string
  tie: string
  valued: (base: SelectQueryBuilder<any, any, any>) => SelectQueryBuilder<any, any, any>
  unvalued: (base: SelectQueryBuilder<any, any, any>) => SelectQueryBuilder<any, any, any>
}

/** What a list route's query parameters parse to (listQuery below). */
export type ListParams = z.infer<ReturnType<typeof listQuery>>

/** The query parameters of a list route: page, per_page, sort, filter and (when the family has relations) expand. */
export function listQuery(spec: ListSpec) {
  // Fields whose ties go first to other columns, named as sort fields (cards: position and the dates, by created).
  const fieldOf = (column: string) => Object.keys(spec.sort).find((name) => spec.sort[name] === column) ?? column
  const byTie = new Map<string, string[]>()
  for (const [name, columns] of Object.entries(spec.sort)) {
    if (typeof columns === 'string') continue
    const tie = columns.slice(1).map(fieldOf).join(', ')
    byTie.set(tie, [...(byTie.get(tie) ?? []), name])
  }
  const tied = [...byTie].map(([tie, names]) => `${names.join(', ')} by ${tie}`)
  return z.object({
    page: z.coerce.number().int().min(1).default(1).meta({ description: 'Page number, from 1.' }),
    per_page: z.coerce.number().int().min(1).max(500).default(30).meta({ description: 'Page size, 1 to 500 (default 30).' }),
    sort: z
      .string()
      .max(500)
      .optional()
      .meta({
        description: `Comma-separated sort fields, a leading \`-\` sorts descending (default \`${spec.defaultSort}\`): ${Object.keys(spec.sort).join(', ')}${spec.keyed ? `, \`${spec.keyed.prefix}<key>\` (first only: the records with a value in its order, ties by id, then those without one in the order of the other fields)` : ''}. Ties are broken by \`id\`${tied.length ? ` (${tied.join('; ')} first)` : ''}, in the direction of the last field.`,
      }),
    filter: z.string().optional().meta({ description: 'Filter expression (see the filter grammar), e.g. `name~"report" && created>="2026-01-01"`.' }),
    expand: z
      .string()
      .max(500)
      .optional()
      .meta({
        description: spec.expand.length
          ? `Comma-separated relations returned inline under \`expand\`: ${spec.expand.join(', ')}.`
          : 'No relations can be expanded here.',
      }),
  })
}

export interface Page<T> {
  page: number
  perPage: number
  totalItems: number
  totalPages: number
  items: T[]
}

export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z
    .strictObject({
      page: z.number().int(),
      perPage: z.number().int(),
      totalItems: z.number().int(),
      totalPages: z.number().int(),
      items: z.array(item),
    })
    .meta({ id: name })
}

/**
 * Parses `sort` against the sortable fields (name → columns) into the columns to order by, each once: the named fields'
 * own columns first, in the asked directions, then the columns that break their ties (position's created), in the last
 * field's direction, as is the final `id` (pageQueries): one index in (field, ties, id) order serves `field` and
 * `-field` alike. Unknown fields, prototype names included, are a 400.
 */
export function parseSort(sort: string, fields: ListSpec['sort']): [string, 'asc' | 'desc'][] {
  const named = sort.split(',').map((part) => {
    const p = part.trim()
    const desc = p.startsWith('-')
    const name = desc || p.startsWith('+') ? p.slice(1) : p
    if (!Object.hasOwn(fields, name)) throw badRequest(`Unknown sort field "${name}"; sortable fields: ${Object.keys(fields).join(', ')}.`)
    const [own, ...ties] = [fields[name]].flat()
    return { own, ties, dir: desc ? ('desc' as const) : ('asc' as const) }
  })
  const order = new Map<string, 'asc' | 'desc'>()
  for (const { own, dir } of named) if (!order.has(own)) order.set(own, dir)
  const last = named.at(-1)!.dir
  for (const { ties } of named) for (const column of ties) if (!order.has(column)) order.set(column, last)
  return [...order]
}

/** Parses `expand` against the relations a resource offers; unknown relations are a 400. */
export function parseExpand(expand: string | undefined, relations: readonly string[]): Set<string> {
  const out = new Set<string>()
  for (const part of expand?.split(',') ?? []) {
    const name = part.trim()
    if (!name) continue
    if (!relations.includes(name)) throw badRequest(`Unknown expand relation "${name}"; available: ${relations.join(', ')}.`)
    out.add(name)
  }
  return out
}

/** A sort map's column, or `lower(<column>)` for an order that ignores ASCII case (the same on both dialects). */
const sortKey = (column: string) => {
  const folded = /^lower\((.+)\)$/.exec(column)
  return folded ? rawSql`lower(${rawSql.ref(folded[1])})` : rawSql.ref(column)
}

/**
 * The two queries of a page: a COUNT over the whole filter and the rows in order, `id` as the final tie-breaker in the
 * direction of the last sort field (so that one index in (field, id) order serves `field` and `-field` alike).
 */
export function pageQueries(
  base: SelectQueryBuilder<any, any, any>,
  table: string,
  opts: { page: number; perPage: number; order: [string, 'asc' | 'desc'][] },
  countBase = base,
) {
  const count = countBase.clearSelect().select(rawSql<number>`count(*)`.as('n'))
  let rows = base.clearSelect().selectAll(table as any)
  for (const [column, dir] of opts.order) rows = rows.orderBy(sortKey(column), dir)
  rows = rows
    .orderBy(rawSql.ref(`${table}.id`), opts.order.at(-1)?.[1] ?? 'asc')
    .limit(opts.perPage)
    .offset((opts.page - 1) * opts.perPage)
  return { count, rows }
}

/** How a list's base is read: see listPage. */
export interface ListOptions {
  anchored?: boolean
  countBase?: SelectQueryBuilder<any, any, any>
  /** The one board the list is narrowed to, when the request names it (a keyed sort then looks at that board only). */
  board?: string
}

/** The keyed sort a `sort` parameter starts with (`-xattr.estimate,title`), if any: its key, direction and the rest. */
export function keyedSortOf(sort: string | undefined, spec: ListSpec): { key: string; dir: 'asc' | 'desc'; rest: string | undefined } | undefined {
  if (!spec.keyed || !sort) return undefined
  const parts = sort.split(',').map((p) => p.trim())
  const bare = (p: string) => (p.startsWith('-') || p.startsWith('+') ? p.slice(1) : p)
  const { prefix } = spec.keyed
  if (parts.slice(1).some((p) => bare(p).startsWith(prefix))) throw badRequest(`A "${prefix}<key>" sort field may only come first.`)
  const first = bare(parts[0])
  if (!first.startsWith(prefix)) return undefined
  return { key: first.slice(prefix.length), dir: parts[0].startsWith('-') ? 'desc' : 'asc', rest: parts.length > 1 ? parts.slice(1).join(',') : undefined }
}

/**
 * The queries of a page sorted by a keyed value: the count of every match, the count of those with a value, and the
 * two reads (`valued`, then `unvalued`) with their own limit and offset (exported so query plans can be tested).
 */
export function keyedListQueries(
  base: SelectQueryBuilder<any, any, any>,
  spec: ListSpec,
  params: ListParams,
  keyed: { order: KeyedOrder; dir: 'asc' | 'desc'; rest: string | undefined },
  opts: ListOptions = {},
) {
  const narrowed = applyFilter(base, spec.resource, params.filter, opts)
  const countBase = opts.countBase ? applyFilter(opts.countBase, spec.resource, params.filter, opts) : narrowed
  const { order, dir } = keyed
  const rest = keyed.rest ? parseSort(keyed.rest, spec.sort) : []
  const last = rest.at(-1)?.[1] ?? dir
  const valuedRows = order
    .valued(narrowed)
    .clearSelect()
    .selectAll(spec.table as any)
    .orderBy(rawSql.ref(order.column), dir)
  const withRest = rest.reduce((q, [column, d]) => q.orderBy(sortKey(column), d), valuedRows).orderBy(rawSql.ref(order.tie), last)
  const unvaluedOrder = keyed.rest ? rest : parseSort(spec.defaultSort, spec.sort)
  return {
    count: countBase.clearSelect().select(rawSql<number>`count(*)`.as('n')),
    valuedCount: order
      .valued(narrowed)
      .clearSelect()
      .select(rawSql<number>`count(*)`.as('n')),
    valued: (offset: number, limit: number) => withRest.limit(limit).offset(offset),
    unvalued: (offset: number, limit: number) =>
      pageQueries(order.unvalued(narrowed), spec.table, { page: 1, perPage: limit, order: unvaluedOrder }).rows.offset(offset),
  }
}

/** The page queries of a list request: `base` narrowed by `filter`, in the asked order (exported so query plans can be tested). */
export function listQueries(base: SelectQueryBuilder<any, any, any>, spec: ListSpec, params: ListParams, opts: ListOptions = {}) {
  const order = parseSort(params.sort || spec.defaultSort, spec.sort)
  const narrowed = (b: SelectQueryBuilder<any, any, any>) => applyFilter(b, spec.resource, params.filter, opts)
  return pageQueries(narrowed(base), spec.table, { page: params.page, perPage: params.per_page, order }, opts.countBase && narrowed(opts.countBase))
}

/**
 * A page of `base` (the visible rows, before filter and paging): `filter`, `sort` and `expand` are checked against
 * the list spec, `totalItems` is the total for the whole filter, and `present` turns the page's rows into API records.
 * `anchored`: the base already narrows by an indexed equality (a board or list parameter), which the filter compiler uses.
 * `countBase`: the same rows as `base`, written as the count reads them quickest (else `base`).
 */
export async function listPage<Row, T>(
  db: Db,
  base: SelectQueryBuilder<any, any, any>,
  spec: ListSpec,
  params: ListParams,
  present: (rows: Row[], expand: ReadonlySet<string>) => Promise<T[]>,
  opts: ListOptions = {},
): Promise<Page<T>> {
  const expand = parseExpand(params.expand, spec.expand)
  const keyed = keyedSortOf(params.sort, spec)
  if (keyed) return keyedPage(db, base, spec, params, keyed, present, expand, opts)
  const q = listQueries(base, spec, params, opts)
  // The count and the page are the reads whose cost the filter decides: both run off the event loop, under the deadline.
  const [[count], rows] = await db.readAll([q.count, q.rows])
  return pageOf(params, Number((count as { n: number }).n), await present(rows as Row[], expand))
}

/** The page envelope. */
const pageOf = <T>(params: ListParams, totalItems: number, items: T[]): Page<T> => ({
  page: params.page,
  perPage: params.per_page,
  totalItems,
  totalPages: Math.ceil(totalItems / params.per_page),
  items,
})

/** listPage sorted by a keyed value (`sort=-xattr.estimate`): see KeyedOrder. */
async function keyedPage<Row, T>(
  db: Db,
  base: SelectQueryBuilder<any, any, any>,
  spec: ListSpec,
  params: ListParams,
  keyed: NonNullable<ReturnType<typeof keyedSortOf>>,
  present: (rows: Row[], expand: ReadonlySet<string>) => Promise<T[]>,
  expand: ReadonlySet<string>,
  opts: ListOptions,
): Promise<Page<T>> {
  const order = await spec.keyed!.resolve(db, keyed.key, { board: opts.board })
  if (typeof order === 'string') throw badRequest(order)
  const q = keyedListQueries(base, spec, params, { order, dir: keyed.dir, rest: keyed.rest }, opts)
  const [[count], [valuedCount]] = await db.readAll([q.count, q.valuedCount])
  const totalItems = Number((count as { n: number }).n)
  const withValue = Number((valuedCount as { n: number }).n)
  const offset = (params.page - 1) * params.per_page
  const fromValued = Math.max(0, Math.min(params.per_page, withValue - offset))
  const reads = []
  if (fromValued > 0) reads.push(q.valued(offset, fromValued))
  if (fromValued < params.per_page && offset + params.per_page > withValue)
    reads.push(q.unvalued(Math.max(0, offset - withValue), params.per_page - fromValued))
  const rows = reads.length ? (await db.readAll(reads)).flat() : []
  return pageOf(params, totalItems, await present(rows as Row[], expand))
}
