// SQLite through better-sqlite3, the embedded default: one write connection handed out first come, first served, and
// heavy reads in the read pool (src/db/read-pool.ts) so they never stall the event loop.
import type Database from 'better-sqlite3'
import { AsyncLocalStorage } from 'node:async_hooks'
import {
  type CompiledQuery,
  type Compilable,
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteQueryCompiler,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely'
import { type BackupProgress, copyPages, writeBackup } from './backup.js'
import { Wakes } from './wakes.js'
import { backgroundWork, type Db, GuardedDriver, guardConnection, inTransaction, makeTx, type RowsOf, run, runAfterCommit, type Tx } from './database.js'
import { openWriteConnection } from './sqlite-file.js'
import { ReadPool } from './read-pool.js'
import type { DB } from './types.js'

/** better-sqlite3 refuses booleans; SQLite stores them as 0/1. */
export const bindParams = (params: readonly unknown[]): unknown[] => params.map((p) => (p === true ? 1 : p === false ? 0 : p))

/**
 * Kysely's SQLite driver prepares every statement; this keeps them prepared (about a sixth of a card create otherwise).
 * A statement that writes outside a transaction first commits the group in progress (see FairDriver).
 */
class StatementCache implements SqliteDatabase {
  private readonly cache = new Map<string, SqliteStatement>()
  constructor(
    private readonly raw: Database.Database,
    private readonly beforePlainWrite: () => void,
  ) {}

  prepare(text: string): SqliteStatement {
    let stmt = this.cache.get(text)
    if (!stmt) {
      const s = this.raw.prepare(text)
      const plain = () => {
        if (!s.readonly && !inTransaction.getStore()) this.beforePlainWrite()
      }
      // .all() for RETURNING too: read with .get(), a RETURNING statement commits late and stalls WAL checkpoints.
      stmt = {
        reader: s.reader,
        all: (p) => (plain(), s.all(...bindParams(p))),
        run: (p) => (plain(), s.run(...bindParams(p))),
        iterate: (p) => (plain(), s.iterate(...bindParams(p))),
      }
      // The oldest out when full (statements whose text carries values come and go; the others stay prepared).
      if (this.cache.size >= 2000) this.cache.delete(this.cache.keys().next().value!)
      this.cache.set(text, stmt)
    }
    return stmt
  }

  close(): void {
    this.raw.close()
  }
}

/** Set while something asks for the connection that must not find a transaction open on it (a backup, close). */
const alone = new AsyncLocalStorage<true>()

/**
 * How long the connection goes from waiter to waiter without the event loop getting a turn. better-sqlite3 answers at
 * once, so hand-offs are promise callbacks only: without a break, a queue of waiters (automation runs going step after
 * step, a burst of incoming requests) would keep the event loop from reading any socket until the queue ran dry.
 */
const SLICE_MS = 10

/** Transactions sharing one COMMIT at most: bounds how long the first of them waits for its answer. */
const MAX_GROUP = 32

/** Transactions that share one COMMIT; each caller hears of its own once the group has committed. */
class CommitGroup {
  members = 0
  /** The error with which SQLite rolled the whole transaction back (SQLITE_FULL, IOERR, ...): every member hears it. */
  failure: unknown
  resolve!: () => void
  reject!: (err: unknown) => void
  readonly committed = new Promise<void>((resolve, reject) => {
    this.resolve = resolve
    this.reject = reject
  })
  constructor() {
    this.committed.catch(() => undefined) // a group whose only member failed has nobody waiting for it
  }
}

/**
 * The one connection, handed out first come, first served (Kysely's own lock, which FairSqliteAdapter turns off, lets
 * a caller that releases and at once asks again, such as a chunked deletion, go before those already waiting).
 *
 * Group commit: a transaction leaves its BEGIN IMMEDIATE open when it ends, and the transactions that get the
 * connection before the event loop's next turn run in it, each in a savepoint (one that fails undoes only its own
 * changes); the group commits at that turn, when MAX_GROUP have joined, before a statement that writes outside a
 * transaction, or before a backup. Every member's caller hears of it only after the COMMIT. A COMMIT writes every page
 * the transaction touched to the WAL (a card touches a page of each of its some thirty indexes and tables); pages the
 * group shares are written once: creates in groups write about 15 KB of WAL a card, as new ids and keys go to the
 * same ends of the indexes (src/ids.ts). Reads outside transactions meanwhile see the group's changes (committed a turn later
 * unless the disk fails).
 */
class FairDriver extends GuardedDriver {
  private held = false
  /** Requests (and commits) waiting for the connection, first come, first served. */
  private readonly waiting: { go: () => void; alone: boolean }[] = []
  /** Background work waiting (see backgroundWork): it gets every other hand-off while requests wait too. */
  private readonly background: { go: () => void; alone: boolean }[] = []
  private lastWentToBackground = false
  /** The group whose transaction is open on the connection, if any. */
  private group: CommitGroup | undefined
  private commitScheduled = false
  /** performance.now() at the first hand-off since the event loop last had a turn; undefined after that turn. */
  private sliceStart: number | undefined

  constructor(
    inner: Driver,
    private readonly raw: Database.Database,
  ) {
    super(inner)
  }

  override acquireConnection = async (): Promise<DatabaseConnection> => {
    guardConnection()
    if (this.held) {
      const isAlone = alone.getStore() === true
      const queue = backgroundWork.getStore() && !isAlone ? this.background : this.waiting
      await new Promise<void>((go) => queue.push({ go, alone: isAlone }))
    }
    this.held = true
    const c = await this.inner.acquireConnection()
    if (alone.getStore()) this.commit()
    return c
  }
  override releaseConnection = async (c: DatabaseConnection) => {
    const g = this.group
    if (g) {
      if (!this.raw.inTransaction || g.members >= MAX_GROUP || this.waiting[0]?.alone) this.commit()
      else if (!this.commitScheduled) {
        this.commitScheduled = true
        inTransaction.exit(() => setImmediate(() => void this.commitLater()))
      }
    }
    await this.inner.releaseConnection(c)
    const next = this.nextWaiter()
    // Handed straight to the next waiter: `held` stays true, so nobody can slip in between.
    if (next) this.handOver(next.go)
    else this.held = false
  }

  /** Requests first, but background work every other time while both wait: neither waits behind the other for long. */
  private nextWaiter() {
    const toBackground = this.background.length > 0 && (this.waiting.length === 0 || !this.lastWentToBackground)
    this.lastWentToBackground = toBackground
    return toBackground ? this.background.shift() : this.waiting.shift()
  }

  /**
   * Gives the connection to the next waiter: at once, or, once hand-offs have gone on for SLICE_MS without a turn of
   * the event loop, after that turn (sockets read, timers run), so requests get in between runs' steps.
   */
  private handOver(go: () => void): void {
    const now = performance.now()
    if (this.sliceStart === undefined) {
      this.sliceStart = now
      inTransaction.exit(() => setImmediate(() => (this.sliceStart = undefined)))
    }
    if (now - this.sliceStart < SLICE_MS) return go()
    inTransaction.exit(() => setImmediate(go))
  }

  private async commitLater(): Promise<void> {
    this.commitScheduled = false
    if (this.group) await alone.run(true, async () => this.releaseConnection(await this.acquireConnection()))
  }

  /** The group in progress, or a new one whose transaction begins now; called by a transaction holding the connection. */
  join(): CommitGroup {
    if (!this.group) {
      this.raw.exec('BEGIN IMMEDIATE')
      this.group = new CommitGroup()
    }
    return this.group
  }

  /** Commits the group in progress, if any (or settles it with the error that rolled it back), and tells its members. */
  commit(): void {
    const g = this.group
    if (!g) return
    this.group = undefined
    try {
      if (!this.raw.inTransaction) throw g.failure ?? new Error('SQLite rolled the transaction back')
      this.raw.exec('COMMIT')
      g.resolve()
    } catch (err) {
      if (this.raw.inTransaction) this.raw.exec('ROLLBACK')
      g.reject(err)
    }
  }
}

/**
 * Parameters as `+?`, not `?`. better-sqlite3 clears a statement's bindings after every call, and SQLite then plans the
 * statement again before its next run whenever the plan it made looked at a parameter: with a join, an ORDER BY, a
 * MIN/MAX, or a partial index, that is most of taskd's statements, and the planning cost more than the statement
 * (a board with the caller's role: 25 µs instead of 3). The unary plus, a no-op on any value, makes a parameter an
 * expression the planner does not look into, as SQLite's query planner stability guarantee would (which better-sqlite3
 * gives no way to turn on): plans depend on the SQL alone. A query that must match a partial index's condition
 * (`status = 'pending'`) says it in the SQL, as a literal, never as a parameter.
 */
class PlannedOnceCompiler extends SqliteQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return '+?'
  }
}

/** Kysely locks a single-connection dialect's connection itself, unfairly; FairDriver does it instead. */
class FairSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true
  }
}

class FairSqliteDialect extends SqliteDialect {
  driver!: FairDriver
  constructor(
    config: ConstructorParameters<typeof SqliteDialect>[0],
    private readonly raw: Database.Database,
  ) {
    super(config)
  }
  override createDriver(): Driver {
    return (this.driver = new FairDriver(super.createDriver(), this.raw))
  }
  override createAdapter(): SqliteAdapter {
    return new FairSqliteAdapter()
  }
  override createQueryCompiler(): PlannedOnceCompiler {
    return new PlannedOnceCompiler()
  }
}

export interface SqliteOptions {
  /** A file (the read pool opens it too) or ':memory:' (reads then run on the write connection). */
  file: string
  /** Default 5,000. */
  queryTimeoutMs?: number
  /** Read processes (default 2); 0 runs reads on the write connection. */
  readWorkers?: number
  /** Gather the planner's statistics at open where missing or stale (default true). */
  optimize?: boolean
}

/** A SQLite Db; `raw`, the better-sqlite3 handle, is for SQLite-only tests (query plans, synchronous property tests). */
export type SqliteDb = Db & { readonly raw: Database.Database }

/** Db.readAll: in the read pool, or without one on the write connection, one after the other while holding it. */
function readerOf(q: Kysely<DB>, pool: ReadPool | undefined): Db['readAll'] {
  return async <const T extends readonly Compilable<unknown>[]>(queries: T): Promise<RowsOf<T>> => {
    const compiled: CompiledQuery[] = queries.map((query) => query.compile())
    // On the write connection no transaction runs in between.
    if (!pool)
      return (await q.connection().execute(async (c) => {
        const rows: unknown[][] = []
        for (const query of compiled) rows.push((await c.executeQuery(query)).rows)
        return rows
      })) as RowsOf<T>
    return (await pool.all(compiled.map((c) => ({ sql: c.sql, params: bindParams(c.parameters) })))) as RowsOf<T>
  }
}

/** Db.tx: fn in a savepoint of its commit group's transaction (see FairDriver); resolves once the group committed. */
async function groupTx<T>(
  db: { q: Kysely<DB>; raw: Database.Database; dialect: FairSqliteDialect; closing: () => boolean },
  fn: (tx: Tx) => Promise<T>,
): Promise<T> {
  const { q, raw, dialect, closing } = db
  const after: (() => void)[] = []
  // The group's transaction is begun by the first of the group.
  const { result, group } = await q.connection().execute((conn) =>
    inTransaction.run(true, async () => {
      if (closing()) throw new Error('the database is closing')
      const group = dialect.driver.join()
      await run(conn, 'SAVEPOINT member')
      try {
        const result = await fn(makeTx(conn, after))
        await run(conn, 'RELEASE SAVEPOINT member')
        group.members++
        return { result, group }
      } catch (err) {
        if (raw.inTransaction) {
          await run(conn, 'ROLLBACK TO SAVEPOINT member')
          await run(conn, 'RELEASE SAVEPOINT member')
        } else group.failure ??= err // SQLite undid the whole group: its other members hear why
        throw err
      }
    }),
  )
  await group.committed
  runAfterCommit(after)
  return result
}

/** Db.backup: the database copied to dest through an owner-only file beside it, renamed when complete. */
function backupTo(q: Kysely<DB>, raw: Database.Database, file: string, dest: string, onProgress?: BackupProgress) {
  return writeBackup(
    file,
    dest,
    // Under one read transaction on the write connection (held meanwhile): every step copies the same snapshot,
    // so writes another process commits during the copy never make SQLite start over, and it always ends.
    (partial) =>
      alone.run(true, () =>
        q.connection().execute(async (conn) => {
          await run(conn, 'BEGIN')
          try {
            await run(conn, 'SELECT 1 FROM sqlite_master LIMIT 1') // takes the snapshot now
            await copyPages(raw, partial, onProgress)
          } finally {
            await run(conn, 'COMMIT')
          }
        }),
      ),
    onProgress,
  )
}

/** Opens (and creates, and migrates) the SQLite file with the pragmas taskd relies on. */
export function openSqlite(opts: SqliteOptions): SqliteDb {
  const { file } = opts
  const raw = openWriteConnection(file, opts.optimize)
  const dialect: FairSqliteDialect = new FairSqliteDialect({ database: new StatementCache(raw, () => dialect.driver.commit()) }, raw)
  const q = new Kysely<DB>({ dialect })
  let closing = false
  const pool = file === ':memory:' || opts.readWorkers === 0 ? undefined : new ReadPool(file, opts.readWorkers ?? 2, opts.queryTimeoutMs ?? 5000)
  const readAll = readerOf(q, pool)
  return {
    dialect: 'sqlite',
    q,
    raw,
    tx: (fn) => groupTx({ q, raw, dialect, closing: () => closing }, fn),
    read: async <R>(query: Compilable<R>): Promise<R[]> => (await readAll([query]))[0],
    readAll,
    backup: (dest, onProgress) => backupTo(q, raw, file, dest, onProgress),
    // One process has the file (a second `serve` is refused): no other process to wake.
    wakes: new Wakes(),
    wake: () => Promise.resolve(),
    close: async () => {
      closing = true
      await alone.run(true, () => q.connection().execute(async () => undefined)) // commits a group still open
      await pool?.close()
      await q.destroy()
    },
  }
}
