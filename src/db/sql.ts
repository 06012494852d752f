// Kysely as a query builder only: queries compile to SQL and run synchronously on better-sqlite3,
// so a transaction is one synchronous block that no other request can interleave with.
import type Database from 'better-sqlite3'
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Compilable } from 'kysely'
import type { DB } from './types.js'

export const qb = new Kysely<DB>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
})

type Row<Q> = Q extends Compilable<infer R> ? R : Q extends Fixed<infer R> ? R : never

/** SQL and parameters ready to run, from fixedQuery. */
export interface Fixed<R> {
  readonly sql: string
  readonly parameters: readonly unknown[]
  readonly __row?: R
}
type Query = Compilable<any> | Fixed<any>

/**
 * A query whose shape never depends on its arguments, built and compiled by Kysely once: later calls only bind
 * their arguments. Compiling on every call cost about a sixth of a card create. `build` must use each argument as
 * a plain parameter (no IN lists built from arrays, no branches on values).
 */
export function fixedQuery<A extends (string | number | null)[], R>(build: (...args: A) => Compilable<R>): (...args: A) => Fixed<R> {
  let template: { sql: string; slots: ({ arg: number } | { value: unknown })[] } | undefined
  return (...args) => {
    if (!template) {
      const sentinels = args.map((_, i) => `\u0000fixed-arg-${i}\u0000`)
      const c = build(...(sentinels as A)).compile()
      template = { sql: c.sql, slots: c.parameters.map((p) => (typeof p === 'string' && sentinels.includes(p) ? { arg: sentinels.indexOf(p) } : { value: p })) }
    }
    return { sql: template.sql, parameters: template.slots.map((s) => ('arg' in s ? args[s.arg] : s.value)) }
  }
}

const compiled = (q: Query): { sql: string; parameters: readonly unknown[] } => ('compile' in q ? q.compile() : q)

function bind(params: readonly unknown[]): unknown[] {
  // better-sqlite3 refuses booleans; SQLite stores them as 0/1.
  return params.map((p) => (p === true ? 1 : p === false ? 0 : p))
}

/** Runs compiled Kysely queries with a cache of prepared statements. */
export class Sql {
  private readonly cache = new Map<string, Database.Statement>()
  constructor(readonly raw: Database.Database) {}

  private prepare(sql: string): Database.Statement {
    let stmt = this.cache.get(sql)
    if (!stmt) {
      stmt = this.raw.prepare(sql)
      if (this.cache.size > 2000) this.cache.clear()
      this.cache.set(sql, stmt)
    }
    return stmt
  }

  all<Q extends Query>(query: Q): Row<Q>[] {
    const c = compiled(query)
    const stmt = this.prepare(c.sql)
    return (stmt.reader ? stmt.all(...bind(c.parameters)) : (stmt.run(...bind(c.parameters)), [])) as Row<Q>[]
  }

  first<Q extends Query>(query: Q): Row<Q> | undefined {
    // .all() rather than .get(): a RETURNING statement read with .get() commits late and stalls WAL checkpoints.
    return this.all(query)[0]
  }

  run(query: Query): number {
    const c = compiled(query)
    return this.prepare(c.sql).run(...bind(c.parameters)).changes
  }

  /** Runs fn in one SQLite transaction (nested calls become savepoints). */
  tx<T>(fn: () => T): T {
    return this.raw.transaction(fn).immediate()
  }
}
