// The async data layer: a Kysely instance for statements, transactions with after-commit hooks and savepoints, and
// bounded-cost reads. SQLite (better-sqlite3, the embedded default) is the dialect here; writes go through its one
// connection, heavy reads through the read pool (src/db/read-pool.ts) so they never stall the event loop.
import { AsyncLocalStorage } from 'node:async_hooks'
import type BetterSqlite3 from 'better-sqlite3'
import {
  type CompiledQuery,
  type Compilable,
  type DatabaseConnection,
  type Driver,
  Kysely,
  sql,
  SqliteDialect,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely'
import { ReadPool } from './read-pool.js'
import type { DB } from './types.js'

/** Something statements run on: the database itself, or a transaction's connection. Stores take one of these. */
export type Q = Kysely<DB>

export interface Tx {
  /** Run every statement of the transaction on this. */
  readonly q: Q
  /** Runs after the transaction commits (never if it rolls back); used to wake the outbox scheduler. */
  afterCommit(fn: () => void): void
  /** Runs fn in a savepoint: if fn throws, only its changes are undone, and the error is passed on. */
  savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
}

export interface Db {
  readonly dialect: 'sqlite' | 'postgres'
  /** Statements outside a transaction. Inside one, use the Tx's `q`: this one waits for the transaction (and throws there). */
  readonly q: Q
  /** One transaction: BEGIN IMMEDIATE on SQLite, so it never fails half-way on a lock upgrade. */
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  /** A read whose cost depends on the input (a filtered page, a count, an export): off the event loop, within TASKD_QUERY_TIMEOUT_MS. */
  read<R>(query: Compilable<R>): Promise<R[]>
  /** The better-sqlite3 handle, for backups and tests. */
  readonly raw: BetterSqlite3.Database
  close(): Promise<void>
}

/** better-sqlite3 refuses booleans; SQLite stores them as 0/1. */
export const bindParams = (params: readonly unknown[]): unknown[] => params.map((p) => (p === true ? 1 : p === false ? 0 : p))

/** Kysely's SQLite driver prepares every statement; this keeps them prepared (about a sixth of a card create otherwise). */
class StatementCache implements SqliteDatabase {
  private readonly cache = new Map<string, SqliteStatement>()
  constructor(private readonly raw: BetterSqlite3.Database) {}

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

const inTransaction = new AsyncLocalStorage<true>()

/**
 * The one connection, handed out first come, first served. Kysely's own lock lets a caller that releases and at once
 * asks again (a chunked deletion) take the connection before those already waiting, which starved other requests for
 * seconds. Also, a transaction holds the connection until it ends: a statement on `db.q` from inside it would wait
 * forever, so that throws.
 */
class FairDriver implements Driver {
  private held = false
  private readonly waiting: (() => void)[] = []
  constructor(private readonly inner: Driver) {}
  init = () => this.inner.init()
  acquireConnection = async (): Promise<DatabaseConnection> => {
    if (inTransaction.getStore()) throw new Error("a statement ran on db.q inside a transaction; use the transaction's q")
    if (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve))
    this.held = true
    return this.inner.acquireConnection()
  }
  releaseConnection = async (c: DatabaseConnection) => {
    await this.inner.releaseConnection(c)
    const next = this.waiting.shift()
    // Handed straight to the next waiter: `held` stays true, so nobody can slip in between.
    if (next) next()
    else this.held = false
  }
  beginTransaction = (c: DatabaseConnection, s: Parameters<Driver['beginTransaction']>[1]) => this.inner.beginTransaction(c, s)
  commitTransaction = (c: DatabaseConnection) => this.inner.commitTransaction(c)
  rollbackTransaction = (c: DatabaseConnection) => this.inner.rollbackTransaction(c)
  destroy = () => this.inner.destroy()
}

class GuardedSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    return new FairDriver(super.createDriver())
  }
}

const run = (q: Q, text: string) => sql.raw(text).execute(q)

function makeTx(q: Q, after: (() => void)[], depth: number): Tx {
  return {
    q,
    afterCommit: (fn) => after.push(fn),
    savepoint: async <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
      const name = `sp${depth}`
      await run(q, `SAVEPOINT ${name}`)
      try {
        const result = await fn(makeTx(q, after, depth + 1))
        await run(q, `RELEASE ${name}`)
        return result
      } catch (err) {
        await run(q, `ROLLBACK TO ${name}`)
        await run(q, `RELEASE ${name}`)
        throw err
      }
    },
  }
}

export interface SqliteOptions {
  /** A file (the read pool opens it too) or ':memory:' (reads then run on the write connection). */
  file: string
  queryTimeoutMs: number
  readWorkers: number
}

export function sqliteDb(raw: BetterSqlite3.Database, opts: SqliteOptions): Db {
  const q = new Kysely<DB>({ dialect: new GuardedSqliteDialect({ database: new StatementCache(raw) }) })
  const pool = opts.file === ':memory:' || opts.readWorkers === 0 ? undefined : new ReadPool(opts.file, opts.readWorkers, opts.queryTimeoutMs)
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
            result = await fn(makeTx(conn, after, 1))
            await run(conn, 'COMMIT')
          } catch (err) {
            if (raw.inTransaction) await run(conn, 'ROLLBACK')
            throw err
          }
          // Outside the transaction's context, so work the hooks start (a scheduler wake-up) may use db.q.
          inTransaction.exit(() => {
            for (const f of after) f()
          })
          return result
        }),
      ),
    read: async <R>(query: Compilable<R>): Promise<R[]> => {
      const compiled: CompiledQuery<R> = query.compile()
      if (!pool) return (await q.executeQuery(compiled)).rows
      return pool.all(compiled.sql, bindParams(compiled.parameters)) as Promise<R[]>
    },
    close: async () => {
      await pool?.close()
      await q.destroy()
    },
  }
}

/** Lets the event loop read sockets and timers: a chain of SQLite statements alone never gives it a turn. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Large changes (a list's cards moved, a board's cards deleted, keys renamed) go a chunk per transaction, and the server
 * answers other requests between chunks. `step` changes up to `size` items and says how many; it ends below `size`.
 */
export async function inChunks(db: Db, size: number, step: (tx: Tx, size: number) => Promise<number>): Promise<void> {
  while ((await db.tx((tx) => step(tx, size))) === size) await nextTurn()
}
