// Paging, sorting and expand parameters shared by every list route (API-DECISIONS §4).
import { z } from 'zod'
import { sql as rawSql, type SelectQueryBuilder } from 'kysely'
import type { Sql } from '../db/sql.js'
import { badRequest } from './errors.js'

export const pageQuery = {
  page: z.coerce.number().int().min(1).default(1).meta({ description: 'Page number, from 1.' }),
  per_page: z.coerce.number().int().min(1).max(500).default(30).meta({ description: 'Page size, 1 to 500 (default 30).' }),
  sort: z.string().max(500).optional().meta({ description: 'Comma-separated sort fields; a leading `-` sorts descending, e.g. `-created,title`.' }),
  filter: z.string().optional().meta({ description: 'Filter expression (see the filter grammar), e.g. `priority>=3 && title~"report"`.' }),
}

export const expandQuery = (relations: readonly string[]) => ({
  expand: z.string().max(500).optional().meta({ description: `Comma-separated relations returned inline under \`expand\`: ${relations.join(', ')}.` }),
})

export interface Page<T> { page: number; perPage: number; totalItems: number; totalPages: number; items: T[] }

export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z.object({
    page: z.number().int(),
    perPage: z.number().int(),
    totalItems: z.number().int(),
    totalPages: z.number().int(),
    items: z.array(item),
  }).meta({ id: name })
}

/** Parses `sort` against the resource's sortable fields (name → column); unknown fields are a 400. */
export function parseSort(sort: string | undefined, fields: Record<string, string>): [string, 'asc' | 'desc'][] {
  if (!sort) return []
  return sort.split(',').map((part) => {
    const p = part.trim()
    const desc = p.startsWith('-')
    const name = desc || p.startsWith('+') ? p.slice(1) : p
    const column = fields[name]
    if (!column) throw badRequest(`Unknown sort field "${name}"; sortable fields: ${Object.keys(fields).join(', ')}.`)
    return [column, desc ? 'desc' : 'asc'] as [string, 'asc' | 'desc']
  })
}

/** Parses `expand` against the relations a resource offers; unknown relations are a 400. */
export function parseExpand(expand: string | undefined, relations: readonly string[]): Set<string> {
  const out = new Set<string>()
  if (!expand) return out
  for (const part of expand.split(',')) {
    const name = part.trim()
    if (!name) continue
    if (!relations.includes(name)) throw badRequest(`Unknown expand relation "${name}"; available: ${relations.join(', ')}.`)
    out.add(name)
  }
  return out
}

/**
 * Runs one page of a filtered query: a COUNT over the whole filter (totalItems is the server total)
 * and the rows of the page in the requested order, with `id` as the final tie-breaker.
 */
export function runPage<Row, T>(
  sql: Sql,
  base: SelectQueryBuilder<any, any, any>,
  table: string,
  opts: { page: number; perPage: number; order: [string, 'asc' | 'desc'][] },
  present: (rows: Row[]) => T[],
): Page<T> {
  const q = pageQueries(base, table, opts)
  const totalItems = (sql.first(q.count) as { n: number }).n
  const rows = sql.all(q.rows) as Row[]
  return { page: opts.page, perPage: opts.perPage, totalItems, totalPages: Math.ceil(totalItems / opts.perPage), items: present(rows) }
}

/** The two queries of a page; exported so the query plans can be tested. */
export function pageQueries(base: SelectQueryBuilder<any, any, any>, table: string, opts: { page: number; perPage: number; order: [string, 'asc' | 'desc'][] }) {
  const count = base.clearSelect().select(rawSql<number>`count(*)`.as('n'))
  let rows = base.clearSelect().selectAll(table as any)
  for (const [column, dir] of opts.order) rows = rows.orderBy(rawSql.ref(column), dir)
  rows = rows.orderBy(rawSql.ref(`${table}.id`), 'asc').limit(opts.perPage).offset((opts.page - 1) * opts.perPage)
  return { count, rows }
}

