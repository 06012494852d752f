// The few SQL spellings that differ between SQLite and PostgreSQL, picked by the dialect of the connection a query runs
// on. Stores use these; nothing else in src/ looks at which database it talks to.
import { PostgresAdapter, sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely'
import { later, type Q } from './database.js'

const isPostgres = (q: Q) => q.getExecutor().adapter instanceof PostgresAdapter

/**
 * The next events.seq. SQLite: one more than the largest (its one writer makes that safe). PostgreSQL: the column's
 * identity sequence, since several processes insert at once.
 */
/** The seq of the next event row: the identity sequence (PostgreSQL), or the last seq + 1 (SQLite, one writer). */
export const nextEventSeq = (q: Q): RawBuilder<number> => (isPostgres(q) ? sql<number>`DEFAULT` : sql<number>`(SELECT COALESCE(MAX(seq), 0) + 1 FROM events)`)

/**
 * The seqs of `count` event rows written by one insert, in their order: the identity sequence (PostgreSQL), or the
 * last seq read once and counted on (SQLite, whose one writer holds the database until the insert is done).
 */
export async function eventSeqs(q: Q, count: number): Promise<(nth: number) => RawBuilder<number>> {
  if (isPostgres(q) || count === 0) return () => sql<number>`DEFAULT`
  const { last } = await q
    .selectFrom('events')
    .select((eb) => eb.fn.coalesce(eb.fn.max('seq'), sql.lit(0)).as('last'))
    .executeTakeFirstOrThrow()
  // Parameters, not literals: the statement's text stays the same from insert to insert, so it stays prepared.
  return (nth) => sql.val(Number(last) + nth + 1)
}

/**
 * The commit_seq of an event row written with `seq`: the same value on SQLite, whose one writer commits in the order
 * it writes; NULL on PostgreSQL, where the transaction's COMMIT message numbers its events (src/db/postgres.ts).
 */
export const eventCommitSeq = (q: Q, seq: RawBuilder<number>): RawBuilder<number | null> => (isPostgres(q) ? sql<null>`NULL` : seq)

/** The tables of logs whose rows are ordered per owner by `seq`. */
export type LogTable = 'webhook_logs' | 'incoming_requests' | 'automation_runs' | 'agent_run_activity'

/**
 * The next seq of a log (a LogTable) that orders the rows of one owner: the owner's last + 1
 * (SQLite), or the table's identity sequence (PostgreSQL).
 */
export const nextLogSeq = (q: Q, log: LogTable, owner: { column: string; id: string }): RawBuilder<number> =>
  isPostgres(q) ? sql<number>`DEFAULT` : sql<number>`(SELECT COALESCE(MAX(seq), 0) + 1 FROM ${sql.table(log)} WHERE ${sql.ref(owner.column)} = ${owner.id})`

/**
 * Rows a worker claims: on PostgreSQL, rows another process is claiming right now are skipped (FOR UPDATE SKIP LOCKED);
 * SQLite has one writer, so nothing to skip.
 */
export const skipLocked = <QB extends SelectQueryBuilder<any, any, any>>(q: Q, query: QB): QB =>
  isPostgres(q) ? (query.forUpdate().skipLocked() as QB) : query

/**
 * A row read in order to change it: on PostgreSQL locked until the transaction ends (FOR UPDATE), so two processes
 * changing the same row take turns instead of overwriting each other's change; SQLite's one writer already does that.
 */
export const forUpdate = <QB extends SelectQueryBuilder<any, any, any>>(q: Q, query: QB): QB => (isPostgres(q) ? (query.forUpdate() as QB) : query)

/**
 * Locks rows so that changes which must see each other take turns (PostgreSQL: SELECT ... FOR UPDATE, sent with the
 * transaction's next statement: the lock is taken before that statement runs). On SQLite it runs no query at all: its
 * one writer already serialises every transaction.
 */
export async function lockRows(q: Q, query: SelectQueryBuilder<any, any, any>): Promise<void> {
  if (isPostgres(q)) await later(q, query.forUpdate())
}

/**
 * `column IN (subquery)` that SQLite must not answer from an index on column (`+column` there), for a set that holds
 * nearly every value: reading an index in the page's order and testing each row beats looking up every value and
 * sorting what they found. PostgreSQL chooses by its statistics.
 */
export const unindexedIn = (q: Q, column: string, subquery: Expression<unknown>): RawBuilder<boolean> =>
  isPostgres(q) ? sql<boolean>`${sql.ref(column)} in (${subquery})` : sql<boolean>`+${sql.ref(column)} in (${subquery})`

/** The database's size in bytes: SQLite's pages (page_count × page_size), PostgreSQL's pg_database_size. */
export async function databaseBytes(q: Q): Promise<number> {
  const query = isPostgres(q)
    ? sql<{ bytes: string | number }>`SELECT pg_database_size(current_database()) AS bytes`
    : sql<{ bytes: number }>`SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()`
  return Number((await query.execute(q)).rows[0].bytes)
}

/** The schema version the database is at (SQLite's user_version, PostgreSQL's schema_version table); 0 before the first migration. */
export async function storedSchemaVersion(q: Q): Promise<number> {
  const query = isPostgres(q)
    ? sql<{ version: number }>`SELECT version FROM schema_version`
    : sql<{ version: number }>`SELECT user_version AS version FROM pragma_user_version()`
  return Number((await query.execute(q)).rows[0]?.version ?? 0)
}

/**
 * Makes the checks of one kind take turns until the transaction ends, in every process on the database: PostgreSQL
 * takes a transaction-level advisory lock on `key` (a fixed number per kind of check, e.g. the dependency graph's
 * cycle check, so two requests closing a cycle at once cannot both pass it); SQLite's one writer already serialises
 * every write transaction, so nothing runs there.
 */
export async function serialiseChecks(q: Q, key: number): Promise<void> {
  if (isPostgres(q)) await sql`SELECT pg_advisory_xact_lock(${sql.lit(key)})`.execute(q)
}
