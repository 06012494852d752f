// Runs a Kysely query synchronously on the SQLite connection, for tests that must stay synchronous (property tests).
import type { Compilable } from 'kysely'
import { bindParams, type SqliteDb } from '../../src/db/sqlite.js'

export function allSync<R>(db: SqliteDb, query: Compilable<R>): R[] {
  const c = query.compile()
  return db.raw.prepare(c.sql).all(...bindParams(c.parameters)) as R[]
}
