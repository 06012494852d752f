// The async data layer: a Kysely instance for statements, transactions with after-commit hooks and savepoints, and
// bounded-cost reads. Two dialects implement it: SQLite (src/db/sqlite.ts, the embedded default) and PostgreSQL
// (src/db/postgres.ts); src/db/open.ts picks one from the configuration.
import { AsyncLocalStorage } from 'node:async_hooks'
import { type Compilable, type CompiledQuery, type DatabaseConnection, type Driver, type Kysely, type RawBuilder, sql } from 'kysely'
import { HttpError } from '../errors.js'
import type { DB } from './types.js'
import type { WakeChannel, Wakes } from './wakes.js'

/** Something statements run on: the database itself, or a transaction's connection. Stores take one of these. */
export type Q = Kysely<DB>

export interface Tx {
  /** Run every statement of the transaction on this. */
  readonly q: Q
  /** Runs after the transaction commits (never if it rolls back); used to wake the outbox scheduler. */
  afterCommit(fn: () => void): void
  /** Runs fn in a savepoint: if fn throws, only its changes are undone, and the error is passed on. */
  savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  /**
   * Wakes `channel` in the other processes on this database when the transaction commits, naming what woke (ids, a
   * queue's name): PostgreSQL sends a NOTIFY with the COMMIT, so it is delivered only if and when the transaction
   * commits. Nothing on SQLite (one process). This process's own workers are woken by afterCommit hooks.
   */
  wake(channel: WakeChannel, what: string): void
}

/** The wake-ups a transaction asked for, by channel: what woke each. */
export type PendingWakes = Map<WakeChannel, Set<string>>

export interface Db {
  readonly dialect: 'sqlite' | 'postgres'
  /** Statements outside a transaction. Inside one, use the Tx's `q`: this one throws there. */
  readonly q: Q
  /**
   * One transaction. SQLite: BEGIN IMMEDIATE, one writer at a time. PostgreSQL: READ COMMITTED, with several at once;
   * fn runs again when it loses a race (a unique violation, a deadlock), so fn must do nothing but database work (side
   * effects go in afterCommit), and counters are bumped in one statement (`SET n = n + 1 RETURNING n`), never read
   * and written back. SQLite commits the transactions of one moment together (see sqlite.ts): fn must never wait for
   * another transaction's promise, which settles only after fn's own transaction has ended.
   */
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  /** A read whose cost depends on the input (a filtered page, a count, an export): within TASKD_QUERY_TIMEOUT_MS, else 503. */
  read<R>(query: Compilable<R>): Promise<R[]>
  /**
   * Reads that belong together (a page and its total) as `read`: on SQLite one message to one read process, which runs
   * them one after the other in one read transaction (the same moment of the database), each within the deadline; on
   * PostgreSQL at once, each in its own transaction.
   */
  readAll<const T extends readonly Compilable<unknown>[]>(queries: T): Promise<RowsOf<T>>
  /**
   * A consistent copy of the database to a file (SQLite), telling onProgress the pages copied of the total as it goes;
   * PostgreSQL answers with an error that points to pg_dump.
   */
  backup(dest: string, onProgress?: (done: number, total: number) => void): Promise<void>
  /** Wake-ups from the other processes on this database (see wakes.ts): subscribe with `wakes.on`. */
  readonly wakes: Wakes
  /** Tx.wake outside a transaction (after a single statement that committed by itself); nothing on SQLite. */
  wake(channel: WakeChannel, what: string): Promise<void>
  close(): Promise<void>
}

/** The rows of each of several queries, in their order. */
export type RowsOf<T extends readonly Compilable<unknown>[]> = { -readonly [K in keyof T]: T[K] extends Compilable<infer R> ? R[] : never }

export const queryTimeout = (ms: number) =>
  new HttpError(503, 'query_timeout', `The query took longer than ${ms} ms and was stopped; narrow the filter or ask for a smaller page.`, undefined, {
    'Retry-After': '1',
  })

/** Set while a transaction's function runs: a statement on `db.q` there would escape the transaction. */
export const inTransaction = new AsyncLocalStorage<true>()

/** Refuses a connection to code inside a transaction (a statement on db.q there), so it cannot escape the transaction. */
export const guardConnection = () => {
  if (inTransaction.getStore()) throw new Error("a statement ran on db.q inside a transaction; use the transaction's q")
}

/**
 * A driver that refuses connections inside transactions (see guardConnection) and may wrap each connection (`wrap`,
 * e.g. to translate errors); otherwise the dialect's own.
 */
export class GuardedDriver implements Driver {
  /** The dialect's connection behind each wrapped one, for the inner driver's calls. */
  private readonly unwrapped = new WeakMap<DatabaseConnection, DatabaseConnection>()
  constructor(
    protected readonly inner: Driver,
    private readonly wrap?: (c: DatabaseConnection) => DatabaseConnection,
  ) {}
  init = () => this.inner.init()
  acquireConnection = async (): Promise<DatabaseConnection> => {
    guardConnection()
    return this.wrapped(await this.inner.acquireConnection())
  }
  protected wrapped(c: DatabaseConnection): DatabaseConnection {
    if (!this.wrap) return c
    const w = this.wrap(c)
    this.unwrapped.set(w, c)
    return w
  }
  protected own = (c: DatabaseConnection) => this.unwrapped.get(c) ?? c
  releaseConnection = (c: DatabaseConnection) => this.inner.releaseConnection(this.own(c))
  beginTransaction = (c: DatabaseConnection, s: Parameters<Driver['beginTransaction']>[1]) => this.inner.beginTransaction(this.own(c), s)
  commitTransaction = (c: DatabaseConnection) => this.inner.commitTransaction(this.own(c))
  rollbackTransaction = (c: DatabaseConnection) => this.inner.rollbackTransaction(this.own(c))
  destroy = () => this.inner.destroy()
}

/** A value a transaction takes late (src/db/late.ts): its token, the transaction-local setting that holds it, its SQL type. */
export interface LateSlot {
  readonly token: string
  readonly setting: string
  /** A number stands in JSON as its token quoted; a text's token stands inside the text. */
  readonly type: 'bigint' | 'double precision' | 'text'
}
/** What a held statement that takes late values tells the connection: whom to turn off if a message fails, its slots, where its row goes. */
export interface LateTaking {
  late: { off: boolean }
  slots: readonly LateSlot[]
  got: (row: Record<string, unknown>) => void
}

/** What a connection that holds statements back (PostgreSQL's, inside a transaction) is asked through. */
export const HOLD = Symbol('hold')
export const AHEAD = Symbol('ahead')
export interface HoldingConnection extends DatabaseConnection {
  /**
   * Keeps the statement to send with the transaction's next message (or its COMMIT); `taking`: it takes late values
   * (src/db/late.ts), and the statements after it in the transaction get them in place of their stand-ins.
   */
  [HOLD](query: CompiledQuery, taking?: LateTaking): void
  /** Sends the statement now, with what is held, without waiting for it: the transaction's next message follows it. */
  [AHEAD](query: CompiledQuery): void
}
const holds = (c: DatabaseConnection): c is HoldingConnection => HOLD in c

/**
 * A statement whose result nobody reads (a row this transaction made up, a lock): on PostgreSQL, inside a transaction,
 * it travels with the transaction's next statement or its COMMIT instead of making a round trip of its own, so an error
 * it meets (a row it refers to deleted meanwhile) fails that statement or the COMMIT. Elsewhere it runs now.
 */
export async function later(q: Q, query: Compilable<unknown> | RawBuilder<unknown> | CompiledQuery): Promise<void> {
  const compiled = 'isRawBuilder' in query ? query.compile(q) : 'compile' in query ? query.compile() : query
  await q.getExecutor().provideConnection(async (c) => {
    if (holds(c)) c[HOLD](compiled)
    else await c.executeQuery(compiled)
  })
}

/**
 * A statement whose result nobody reads and that keeps the server busy for a while (a chunk's move of a thousand
 * cards): on PostgreSQL, inside a transaction, it goes now (with what is held) and the code after it runs while the
 * server works, instead of waiting; the transaction's next message follows it, and fails with its error if it failed.
 * Elsewhere it runs now.
 */
export async function ahead(q: Q, query: Compilable<unknown> | RawBuilder<unknown>): Promise<void> {
  const compiled = 'isRawBuilder' in query ? query.compile(q) : query.compile()
  await q.getExecutor().provideConnection(async (c) => {
    if (holds(c)) c[AHEAD](compiled)
    else await c.executeQuery(compiled)
  })
}

const gathering = new AsyncLocalStorage<true>()
/** Whether the statement being sent was started inside `together` (PostgreSQL then waits for the others started with it). */
export const gatheringReads = (): boolean => gathering.getStore() === true

/**
 * Runs fn, whose reads do not depend on one another (a Promise.all of them): on PostgreSQL, inside a transaction, the
 * statements they start in the same turn of the event loop go to the server as one message (one round trip). Elsewhere
 * it is fn.
 */
export const together = <T>(fn: () => Promise<T>): Promise<T> => gathering.run(true, fn)

/**
 * Rows per transaction of a cascade (a list deleted with move_to, a list's new category), so other requests get the
 * database in between: a chunk is a few set statements. On SQLite a chunk holds the event loop while it runs (some 30
 * to 60 ms for 250 cards); on PostgreSQL the server does the work while the loop answers others, so larger chunks
 * there cost other requests little and save messages and commits (2,000 moved a list some 15% faster than 1,000 on a
 * loaded host; a chunk then holds its cards' rows for about half a second).
 */
export const cascadeChunk = (db: Db): number => (db.dialect === 'postgres' ? 2000 : 250)

/**
 * Reads that go together but outside any write (a page's views: its links, categories, progress, custom fields, ...):
 * on PostgreSQL in one transaction, so that the reads fn starts `together` go as one message on one connection instead
 * of a statement each on connections of their own from the pool; on SQLite plain reads (fn(db.q)).
 */
export const readTogether = <T>(db: Db, fn: (q: Q) => Promise<T>): Promise<T> => (db.dialect === 'postgres' ? db.tx((tx) => fn(tx.q)) : fn(db.q))

const readsAhead = new WeakMap<Q, Map<string, Promise<unknown>>>()

/**
 * Starts, early and beside other reads (`together`), a read that code further down the same transaction makes
 * (readOnce with the same key): a board's webhooks, its event automations. Only for rows the transaction does not
 * change after it. Outside a transaction nothing is kept.
 */
export function readAhead<T>(q: Q, key: string, read: () => Promise<T>): void {
  if (!q.isTransaction) return
  const p = read()
  p.catch(() => undefined) // read again by readOnce's caller, who then gets the error
  let m = readsAhead.get(q)
  if (!m) readsAhead.set(q, (m = new Map()))
  m.set(key, p)
}

/** The read started with readAhead under `key` in this transaction, else `read()`. */
export const readOnce = <T>(q: Q, key: string, read: () => Promise<T>): Promise<T> => (readsAhead.get(q)?.get(key) as Promise<T> | undefined) ?? read()

/** Runs a statement given as text (transaction control, savepoints). */
export const run = (q: Q, text: string) => sql.raw(text).execute(q)

/**
 * The Tx handed to a transaction's function; `after` collects its afterCommit hooks, `wakes` its wake-ups of other
 * processes (none kept where there are no other processes: SQLite).
 */
export function makeTx(q: Q, after: (() => void)[], wakes?: PendingWakes, depth = 1): Tx {
  return {
    q,
    afterCommit: (fn) => after.push(fn),
    wake: (channel, what) => {
      if (!wakes) return
      let items = wakes.get(channel)
      if (!items) wakes.set(channel, (items = new Set()))
      items.add(what)
    },
    savepoint: async <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
      const name = `sp${depth}`
      await run(q, `SAVEPOINT ${name}`)
      try {
        const result = await fn(makeTx(q, after, wakes, depth + 1))
        await run(q, `RELEASE SAVEPOINT ${name}`)
        return result
      } catch (err) {
        await run(q, `ROLLBACK TO SAVEPOINT ${name}`)
        await run(q, `RELEASE SAVEPOINT ${name}`)
        throw err
      }
    },
  }
}

/** Runs the after-commit hooks outside the transaction's context, so work they start (a scheduler wake-up) may use db.q. */
export const runAfterCommit = (after: readonly (() => void)[]) =>
  inTransaction.exit(() => {
    for (const f of after) f()
  })

/**
 * Set while background work runs (a job runner's job, the automation runs an incoming request queues): on SQLite, the
 * one connection goes to requests first, and to background work every other turn while both wait (src/db/sqlite.ts),
 * so a flood of runs or of incoming calls never queues ahead of a person's request for long.
 */
export const backgroundWork = new AsyncLocalStorage<true>()
export const inBackground = <T>(fn: () => Promise<T>): Promise<T> => backgroundWork.run(true, fn)

/** Lets the event loop read sockets and timers: a chain of SQLite statements alone never gives it a turn. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Large changes (a list's cards moved, a board's cards deleted, keys renamed) go a chunk per transaction, and the server
 * answers other requests between chunks. `step` changes up to `size` items and says how many; it ends below `size`.
 */
export async function inChunks(db: Db, size: number, step: (tx: Tx, size: number) => Promise<number>): Promise<void> {
  while ((await db.tx((tx) => step(tx, size))) === size) await nextTurn()
}
