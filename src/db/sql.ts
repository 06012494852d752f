// Kysely as a query builder only: queries compile to SQL and run synchronously on better-sqlite3,
// so a transaction is one synchronous block that no other request can interleave with.
import type Database from 'better-sqlite3'
import {
  DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler,
  type Compilable, type CompiledQuery,
} from 'kysely'
import type { DB } from './types.js'

export const qb = new Kysely<DB>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
})

type Row<Q> = Q extends Compilable<infer R> ? R : never

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

  all<Q extends Compilable<any>>(query: Q): Row<Q>[] {
    const c: CompiledQuery = query.compile()
    const stmt = this.prepare(c.sql)
    return (stmt.reader ? stmt.all(...bind(c.parameters)) : (stmt.run(...bind(c.parameters)), [])) as Row<Q>[]
  }

  first<Q extends Compilable<any>>(query: Q): Row<Q> | undefined {
    // .all() rather than .get(): a RETURNING statement read with .get() commits late and stalls WAL checkpoints.
    return this.all(query)[0]
  }

  run(query: Compilable<any>): number {
    const c = query.compile()
    return this.prepare(c.sql).run(...bind(c.parameters)).changes
  }

  /** Runs fn in one SQLite transaction (nested calls become savepoints). */
  tx<T>(fn: () => T): T {
    return this.raw.transaction(fn).immediate()
  }
}
