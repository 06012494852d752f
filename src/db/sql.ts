// Fixed-shape queries: built and compiled by Kysely once per dialect, then only their arguments are bound.
import { CompiledQuery, type Compilable, type RawBuilder, sql } from 'kysely'
import { type Db, later, type Q } from './database.js'
import { type LogTable, nextLogSeq } from './dialect.js'
import type { DB } from './types.js'

/** What a column holds: text, a number, NULL, or bytes (files). */
type Value = string | number | null | Uint8Array

interface Template {
  sql: string
  slots: ({ arg: number } | { value: unknown })[]
}

/**
 * A query whose shape never depends on its arguments. Compiling on every call cost about a sixth of a card create.
 * `build` must use each argument as a plain parameter (no IN lists built from arrays, no branches on values).
 */
export function fixedQuery<A extends Value[], R>(build: (q: Q, ...args: A) => Compilable<R>): (q: Q, ...args: A) => CompiledQuery<R> {
  // One template per dialect (its adapter), since SQLite and PostgreSQL spell queries differently.
  const templates = new WeakMap<object, Template>()
  return (q, ...args) => {
    const adapter = q.getExecutor().adapter
    let template = templates.get(adapter)
    if (!template) {
      const sentinels = args.map((_, i) => `\u0000fixed-arg-${i}\u0000`)
      const c = build(q, ...(sentinels as A)).compile()
      template = { sql: c.sql, slots: c.parameters.map((p) => (typeof p === 'string' && sentinels.includes(p) ? { arg: sentinels.indexOf(p) } : { value: p })) }
      templates.set(adapter, template)
    }
    return CompiledQuery.raw(
      template.sql,
      template.slots.map((s) => ('arg' in s ? args[s.arg] : s.value)),
    ) as CompiledQuery<R>
  }
}

/**
 * A value written into the SQL text rather than bound: what a partial index's condition names (`status = 'pending'`,
 * schema.sql) must be written so, for SQLite never plans with the values of parameters (src/db/sqlite.ts) and so
 * would not know that the query keeps to the index's rows.
 */
export const literal = <T extends string | number>(value: T): RawBuilder<T> => sql.lit(value) as RawBuilder<T>

/**
 * Inserts a row of `table`, compiled once per dialect and list of columns, as fixedQuery does (built by Kysely on every
 * call, the inserts of a card create cost as much as SQLite's own work on them). The row of a log (a LogTable) also gets
 * the next `seq` of its owner, the row's `seqOf` column (nextLogSeq).
 */
export function rowInsert<T extends Exclude<keyof DB, LogTable>>(table: T): (q: Q, row: DB[T], held?: 'later') => Promise<void>
export function rowInsert<T extends LogTable>(table: T, seqOf: keyof DB[T] & string): (q: Q, row: Omit<DB[T], 'seq'>, held?: 'later') => Promise<void>
/** With `'later'`, the insert travels with the transaction's next statement (`later`): for a row nothing reads back at once. */
export function rowInsert(table: keyof DB, seqOf?: string): (q: Q, row: object, held?: 'later') => Promise<void> {
  const byColumns = new Map<string, (q: Q, ...values: Value[]) => CompiledQuery>()
  return async (q, row, held) => {
    const values = row as Record<string, Value | undefined>
    const columns = Object.keys(values).filter((c) => values[c] !== undefined)
    const key = columns.join()
    let insert = byColumns.get(key)
    if (!insert) {
      insert = fixedQuery((q: Q, ...args: Value[]) => {
        const named: Record<string, unknown> = Object.fromEntries(columns.map((c, i) => [c, args[i]]))
        if (seqOf) named.seq = nextLogSeq(q, table as LogTable, { column: seqOf, id: named[seqOf] as string })
        return q.insertInto(table).values(named as never)
      })
      byColumns.set(key, insert)
    }
    const compiled = insert(q, ...columns.map((c) => values[c] as Value))
    await (held ? later(q, compiled) : q.executeQuery(compiled))
  }
}

/** The rows of a compiled query. */
export const rowsOf = async <R>(q: Q, query: CompiledQuery<R>): Promise<R[]> => (await q.executeQuery(query)).rows

/** The first row of a compiled query, or undefined. */
export const firstOf = async <R>(q: Q, query: CompiledQuery<R>): Promise<R | undefined> => (await q.executeQuery(query)).rows[0]

type WithId = { [T in keyof DB]: DB[T] extends { id: string } ? T : never }[keyof DB]

/** The rows of a table with these ids (each once), in one query; none for none. */
export async function rowsByIds<T extends WithId>(q: Q, table: T, ids: readonly string[]): Promise<DB[T][]> {
  if (ids.length === 0) return []
  const rows = await q
    .selectFrom(table as 'users')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute()
  return rows as unknown as DB[T][]
}

/** Rows per status of a table with a status column (/metrics reads the automation runs and kickoffs this way). */
export async function countsByStatus(db: Db, table: 'automation_runs' | 'agent_kickoffs'): Promise<Map<string, number>> {
  // A scan of the whole table: a bounded read off the event loop (the read pool on SQLite), not on the write connection.
  const rows = await db.read(
    db.q
      .selectFrom(table)
      .select((eb) => [eb.ref('status').as('status'), eb.fn.countAll<number | string>().as('count')])
      .groupBy('status'),
  )
  return new Map(rows.map((r) => [r.status as string, Number(r.count)]))
}
