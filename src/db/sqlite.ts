// SQLite through better-sqlite3, the embedded default: one write connection handed out first come, first served, and
// heavy reads in the read pool (src/db/read-pool.ts) so they never stall the event loop.
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import {
  type CompiledQuery,
  type Compilable,
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteDialect,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely'
import { sqliteBinding } from '../assets.js'
import { type Db, GuardedDriver, guardConnection, inTransaction, makeTx, run, runAfterCommit } from './database.js'
import { registerFunctions } from './functions.js'
import { migrateSqlite } from './migrate.js'
import { ReadPool } from './read-pool.js'
import type { DB } from './types.js'

/** better-sqlite3 refuses booleans; SQLite stores them as 0/1. */
export const bindParams = (params: readonly unknown[]): unknown[] => params.map((p) => (p === true ? 1 : p === false ? 0 : p))

/** Kysely's SQLite driver prepares every statement; this keeps them prepared (about a sixth of a card create otherwise). */
class StatementCache implements SqliteDatabase {
  private readonly cache = new Map<string, SqliteStatement>()
  constructor(private readonly raw: Database.Database) {}

  prepare(text: string): SqliteStatement {
    let stmt = this.cache.get(text)
    if (!stmt) {
      const s = this.raw.prepare(text)
      // .all() for RETURNING too: read with .get(), a RETURNING statement commits late and stalls WAL checkpoints.
      stmt = {
        reader: s.reader,
        all: (p) => s.all(...bindParams(p)),
        run: (p) => s.run(...bindParams(p)),
        iterate: (p) => s.iterate(...bindParams(p)),
      }
      if (this.cache.size > 2000) this.cache.clear()
      this.cache.set(text, stmt)
    }
    return stmt
  }

  close(): void {
    this.raw.close()
  }
}

/**
 * The one connection, handed out first come, first served. Kysely's own lock lets a caller that releases and at once
 * asks again (a chunked deletion) take the connection before those already waiting, which starved other requests for
 * seconds.
 */
class FairDriver extends GuardedDriver {
  private held = false
  private readonly waiting: (() => void)[] = []
  override acquireConnection = async (): Promise<DatabaseConnection> => {
    guardConnection()
    if (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve))
    this.held = true
    return this.inner.acquireConnection()
  }
  override releaseConnection = async (c: DatabaseConnection) => {
    await this.inner.releaseConnection(c)
    const next = this.waiting.shift()
    // Handed straight to the next waiter: `held` stays true, so nobody can slip in between.
    if (next) next()
    else this.held = false
  }
}

class FairSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    return new FairDriver(super.createDriver())
  }
}

export interface SqliteOptions {
  /** A file (the read pool opens it too) or ':memory:' (reads then run on the write connection). */
  file: string
  /** Default 5,000. */
  queryTimeoutMs?: number
  /** Read processes (default 2); 0 runs reads on the write connection. */
  readWorkers?: number
}

/** A SQLite Db; `raw`, the better-sqlite3 handle, is for SQLite-only tests (query plans, synchronous property tests). */
export type SqliteDb = Db & { readonly raw: Database.Database }

/** Opens (and creates, and migrates) the SQLite file with the pragmas taskd relies on. */
export function openSqlite(opts: SqliteOptions): SqliteDb {
  const { file } = opts
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
    // A new database file is readable by its owner only; SQLite gives its -wal and -shm files the same mode.
    fs.closeSync(fs.openSync(file, 'a', 0o600))
  }
  const raw = new Database(file, { nativeBinding: sqliteBinding() })
  registerFunctions(raw)
  raw.pragma('journal_mode = WAL')
  raw.pragma('busy_timeout = 5000')
  raw.pragma('foreign_keys = ON')
  raw.pragma('synchronous = NORMAL')
  migrateSqlite(raw)
  // Gathers planner statistics where they are missing or stale, so filters pick their indexes (cheap when fresh).
  raw.pragma('analysis_limit = 1000') // bounds the work optimize may do at open, however large the tables
  raw.pragma('optimize = 0x10002')

  const q = new Kysely<DB>({ dialect: new FairSqliteDialect({ database: new StatementCache(raw) }) })
  const pool = file === ':memory:' || opts.readWorkers === 0 ? undefined : new ReadPool(file, opts.readWorkers ?? 2, opts.queryTimeoutMs ?? 5000)
  return {
    dialect: 'sqlite',
    q,
    raw,
    tx: (fn) =>
      q.connection().execute((conn) =>
        inTransaction.run(true, async () => {
          const after: (() => void)[] = []
          await run(conn, 'BEGIN IMMEDIATE')
          let result
          try {
            result = await fn(makeTx(conn, after))
            await run(conn, 'COMMIT')
          } catch (err) {
            if (raw.inTransaction) await run(conn, 'ROLLBACK')
            throw err
          }
          runAfterCommit(after)
          return result
        }),
      ),
    read: async <R>(query: Compilable<R>): Promise<R[]> => {
      const compiled: CompiledQuery<R> = query.compile()
      if (!pool) return (await q.executeQuery(compiled)).rows
      return pool.all(compiled.sql, bindParams(compiled.parameters)) as Promise<R[]>
    },
    backup: async (dest, onProgress) => {
      if (file !== ':memory:' && path.resolve(dest) === path.resolve(file)) throw new Error('the backup cannot be the database itself')
      // Written to an owner-only file beside the destination, then renamed: never readable by others, never half-written.
      fs.mkdirSync(path.dirname(path.resolve(dest)), { recursive: true })
      const partial = `${dest}.partial-${process.pid}`
      fs.closeSync(fs.openSync(partial, 'w', 0o600))
      try {
        // Under one read transaction on the write connection (held meanwhile): every step copies the same snapshot,
        // so writes another process commits during the copy never make SQLite start over, and it always ends.
        await q.connection().execute(async (conn) => {
          await run(conn, 'BEGIN')
          try {
            await run(conn, 'SELECT 1 FROM sqlite_master LIMIT 1') // takes the snapshot now
            await raw.backup(partial, {
              progress: ({ totalPages, remainingPages }) => {
                onProgress?.(totalPages - remainingPages, totalPages)
                return Math.ceil(totalPages / 100)
              },
            })
          } finally {
            await run(conn, 'COMMIT')
          }
        })
        onProgress?.(1, 1)
        fs.renameSync(partial, dest)
      } finally {
        fs.rmSync(partial, { force: true })
      }
    },
    close: async () => {
      await pool?.close()
      await q.destroy()
    },
  }
}
