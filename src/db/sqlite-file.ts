// The SQLite file's write connection as taskd opens it: created owner-only if new, the pragmas taskd relies on, the
// schema migrated. better-sqlite3 alone (no Kysely): src/db/sqlite.ts builds the Db on it, and a short command that
// runs a statement or two uses it bare (src/cli/token.ts).
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import { sqliteBinding } from '../assets.js'
import { setUpConnection } from './connection.js'
import { migrateSqlite } from './migrate.js'

/** The write connection: the file created (owner-only) if new, the pragmas taskd relies on, the schema migrated. */
export function openWriteConnection(file: string, optimize = true): Database.Database {
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
    // A new database file is readable by its owner only; SQLite gives its -wal and -shm files the same mode.
    fs.closeSync(fs.openSync(file, 'a', 0o600))
  }
  const raw = new Database(file, { nativeBinding: sqliteBinding() })
  setUpConnection(raw)
  raw.pragma('journal_mode = WAL')
  raw.pragma('busy_timeout = 5000')
  raw.pragma('foreign_keys = ON')
  raw.pragma('synchronous = NORMAL')
  migrateSqlite(raw)
  // Gathers planner statistics where they are missing or stale, so filters pick their indexes (cheap when fresh); an
  // index a migration creates gets its statistics from CREATE INDEX itself. A short command (a token, a user) runs a
  // statement or two and leaves this to the server.
  if (optimize) {
    raw.pragma('analysis_limit = 1000') // bounds the work optimize may do at open, however large the tables
    raw.pragma('optimize = 0x10002')
  }
  return raw
}
