// PostgreSQL through pg and Kysely's PostgresDialect: a pool of connections, so several requests (and several taskd
// processes) work at once. Transactions run at READ COMMITTED (each statement sees what has committed before it) and run
// again when they lose a race; reads get a statement_timeout.
import { AsyncLocalStorage } from 'node:async_hooks'
import pg from 'pg'
import { type Compilable, CompiledQuery, type DatabaseConnection, type Driver, Kysely, PostgresDialect, sql } from 'kysely'
import { HttpError } from '../errors.js'
import { type Db, GuardedDriver, inTransaction, makeTx, type PendingWakes, queryTimeout, type RowsOf, runAfterCommit } from './database.js'
import { storedSchemaVersion } from './dialect.js'
import { migratePostgres } from './migrate.js'
import { WakeListener } from './postgres-listen.js'
import type { DB } from './types.js'
import { encodeWake, pgChannel, type WakeChannel, Wakes } from './wakes.js'

// int8 (BIGINT, COUNT(*)) comes back as a string by default; every such value here stays below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v))

/**
 * The transaction lost a race and runs again from the start, where its checks see the winner: unique_violation (a
 * concurrent insert of the same idempotency key, prefix or name committed first; the service's own check then answers
 * as it would have), foreign_key_violation (a row it refers to was deleted meanwhile: the check answers 404 or 422),
 * serialization_failure and deadlock_detected. A unique violation that no check precedes fails
 * again every time and ends as it would have anyway.
 */
const RETRYABLE = new Set(['23503', '23505', '40001', '40P01'])
const MAX_ATTEMPTS = 10
const pgCode = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}
const backoff = (attempt: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)))

/**
 * A data exception (SQLSTATE class 22: a NUL character in text, '1.5' or 3000000000 for an integer column) comes from a
 * value in the request that PostgreSQL refuses where SQLite stores it: a 400, never a 500.
 */
const dataError = (err: unknown) =>
  pgCode(err)?.startsWith('22') ? new HttpError(400, 'invalid_value', `A value in the request cannot be used: ${(err as Error).message}.`) : err

/** The wake-ups of the transaction being run (Db.tx), which its COMMIT sends. */
const pendingWakes = new AsyncLocalStorage<{ wakes: PendingWakes; processId: string }>()

/** A string literal: the payloads are ids and names taskd makes, but quoted all the same. */
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`

/** The NOTIFY statements of a transaction's wake-ups (channels are a fixed set of plain names). */
const notifyText = (wakes: PendingWakes, processId: string) =>
  [...wakes].map(([channel, items]) => `NOTIFY ${pgChannel(channel)}, ${literal(encodeWake(processId, items))}`).join('; ')

/** Any number for pg_advisory_xact_lock, the same in every taskd: commits that wrote events number them one at a time. */
const EVENT_ORDER_LOCK = 0x65766e74 // 'evnt'

/**
 * Numbers the events this transaction wrote (those without a commit_seq: other transactions' unnumbered rows are not
 * committed, so not seen) after the last number, in the order they were written. The lock is held until the commit is
 * visible to every reader (PostgreSQL releases a transaction's locks after it marks it committed), and the next
 * holder's UPDATE takes a new snapshot after taking it: numbers are handed out in commit order, and a reader that
 * sees commit_seq n sees every smaller one. So the change feed, which pages by commit_seq, never skips an event that
 * commits late. Commits that notify are serialised by PostgreSQL anyway (its notification queue's lock).
 */
const NUMBER_EVENTS =
  `SELECT pg_advisory_xact_lock(${EVENT_ORDER_LOCK}); ` +
  'UPDATE events SET commit_seq = numbered.commit_seq FROM (' +
  'SELECT id, (SELECT COALESCE(MAX(commit_seq), 0) FROM events) + row_number() OVER (ORDER BY seq) AS commit_seq FROM events WHERE commit_seq IS NULL' +
  ') numbered WHERE events.id = numbered.id'

/**
 * A transaction that woke channels commits with its NOTIFY statements in the same message as the COMMIT (one simple
 * query, no round trip of their own); PostgreSQL delivers them at commit, never for a transaction that rolls back. A
 * transaction that failed refuses the NOTIFY, so the COMMIT after it never runs and the transaction is rolled back.
 * One that wrote events (every such transaction wakes the events channel) numbers them in that message too.
 */
class WakingDriver extends GuardedDriver {
  override commitTransaction = async (c: DatabaseConnection): Promise<void> => {
    const pending = pendingWakes.getStore()
    if (!pending || pending.wakes.size === 0) return this.inner.commitTransaction(this.own(c))
    const numbering = pending.wakes.has('events') ? `${NUMBER_EVENTS}; ` : ''
    await this.own(c).executeQuery(CompiledQuery.raw(`${numbering}${notifyText(pending.wakes, pending.processId)}; COMMIT`))
  }
}

class GuardedPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new WakingDriver(super.createDriver(), (conn): DatabaseConnection => ({
      executeQuery: async <R>(q: CompiledQuery) => {
        try {
          return await conn.executeQuery<R>(q)
        } catch (err) {
          throw dataError(err)
        }
      },
      streamQuery: (q, rows) => conn.streamQuery(q, rows),
    }))
  }
}

export interface PostgresOptions {
  url: string
  queryTimeoutMs: number
  /** Connections this process keeps open at most. */
  poolSize: number
  /** A direct connection for what needs a session (the LISTEN connection), when `url` goes through a pooler; default `url`. */
  directUrl?: string
  log?: (msg: string, err?: unknown) => void
}

/** The schema version a PostgreSQL database is at (0 before taskd first started on it), read without migrating it. */
export async function postgresSchemaVersion(url: string): Promise<number> {
  const q = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, application_name: 'taskd' }) }) })
  try {
    const { rows } = await sql<{ found: string | null }>`SELECT to_regclass('schema_version') AS found`.execute(q)
    return rows[0]?.found ? await storedSchemaVersion(q) : 0
  } finally {
    await q.destroy()
  }
}

/** Connects, and brings the schema up to date (once, when several processes start together). */
export async function openPostgres(opts: PostgresOptions): Promise<Db> {
  const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolSize, application_name: 'taskd' })
  // A connection that breaks while idle (the server restarted) is dropped by the pool; without a listener it would crash us.
  pool.on('error', (err) => (opts.log ?? console.error)('a PostgreSQL connection failed while idle', err))
  const q = new Kysely<DB>({ dialect: new GuardedPostgresDialect({ pool }) })
  try {
    await migratePostgres(q)
    // Text sorts and lower() folds as on SQLite only under the C collation; elsewhere taskd works, but orders differ.
    const { rows } = await sql<{ datcollate: string; datctype: string }>`
      SELECT datcollate, datctype FROM pg_database WHERE datname = current_database()`.execute(q)
    const locale = rows[0] ?? { datcollate: 'C', datctype: 'C' }
    if (![locale.datcollate, locale.datctype].every((l) => l === 'C' || l === 'POSIX')) {
      ;(opts.log ?? console.error)(
        `warning: the database's collation and ctype are ${locale.datcollate} and ${locale.datctype}, not C: names sort and fold case in that locale's way, not as on SQLite (README, "Running on PostgreSQL")`,
      )
    }
  } catch (err) {
    await q.destroy()
    throw err
  }
  const log = opts.log ?? console.error
  // The LISTEN connection opens when the first subscriber (a worker of `serve`) asks for wake-ups.
  const listener: { current?: WakeListener } = {}
  const wakes: Wakes = new Wakes((): Promise<void> => {
    listener.current = new WakeListener(opts.directUrl ?? opts.url, wakes, log)
    listener.current.start()
    return listener.current.ready
  })
  const read = async <R>(query: Compilable<R>): Promise<R[]> => {
    const compiled = query.compile()
    try {
      return await q
        .transaction()
        .setAccessMode('read only')
        .execute(async (trx) => {
          await sql.raw(`SET LOCAL statement_timeout = ${Math.floor(opts.queryTimeoutMs)}`).execute(trx)
          return (await trx.executeQuery(compiled)).rows
        })
    } catch (err) {
      // query_canceled: the statement ran past statement_timeout.
      if (pgCode(err) === '57014') throw queryTimeout(opts.queryTimeoutMs)
      throw err
    }
  }
  return {
    dialect: 'postgres',
    q,
    tx: async (fn) => {
      for (let attempt = 1; ; attempt++) {
        const after: (() => void)[] = []
        const pending = { wakes: new Map() as PendingWakes, processId: wakes.processId }
        try {
          const result = await pendingWakes.run(pending, () =>
            q.transaction().execute((trx) => inTransaction.run(true, () => fn(makeTx(trx, after, pending.wakes)))),
          )
          runAfterCommit(after)
          return result
        } catch (err) {
          if (attempt >= MAX_ATTEMPTS || !RETRYABLE.has(pgCode(err) ?? '')) throw err
          await backoff(attempt)
        }
      }
    },
    read,
    readAll: async <const T extends readonly Compilable<unknown>[]>(queries: T): Promise<RowsOf<T>> =>
      (await Promise.all(queries.map((query) => read(query)))) as RowsOf<T>,
    backup: () => Promise.reject(new Error('taskd backup copies the SQLite file; on PostgreSQL, use pg_dump (see docs/postgres.md)')),
    wakes,
    wake: async (channel: WakeChannel, what: string) => {
      await sql`SELECT pg_notify(${pgChannel(channel)}, ${encodeWake(wakes.processId, new Set([what]))})`.execute(q)
    },
    close: async () => {
      await listener.current?.close()
      await q.destroy()
    },
  }
}
