// Opens the database: the SQLite file with the pragmas taskd relies on, its schema brought up to date.
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import { type Db, sqliteDb } from './database.js'
import { migrate } from './migrate.js'

export interface OpenOptions {
  /** A read past this many milliseconds is stopped and answers 503 query_timeout. */
  queryTimeoutMs?: number
  /** Read processes; 0 runs reads on the write connection. */
  readWorkers?: number
}

export function openDatabase(file: string, opts: OpenOptions = {}): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
  const raw = new Database(file)
  raw.pragma('journal_mode = WAL')
  raw.pragma('busy_timeout = 5000')
  raw.pragma('foreign_keys = ON')
  raw.pragma('synchronous = NORMAL')
  migrate(raw)
  // Gathers planner statistics where they are missing or stale, so filters pick their indexes (cheap when fresh).
  raw.pragma('analysis_limit = 1000') // bounds the work optimize may do at open, however large the tables
  raw.pragma('optimize = 0x10002')
  return sqliteDb(raw, { file, queryTimeoutMs: opts.queryTimeoutMs ?? 5000, readWorkers: opts.readWorkers ?? 2 })
}
