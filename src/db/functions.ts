// SQL functions taskd's queries use that SQLite lacks; every connection registers them (the read processes too).
import type Database from 'better-sqlite3'

/** taskd_fold: Unicode case folding (É → é), as JavaScript's toLowerCase; PostgreSQL has the same function in its schema. */
export function registerFunctions(raw: Database.Database): void {
  raw.function('taskd_fold', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s))
}
