// The few SQL spellings that differ between SQLite and PostgreSQL, picked by the dialect of the connection a query runs
// on. Stores use these; nothing else in src/ looks at which database it talks to.
import { CompiledQuery, PostgresAdapter, sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely'
import { later, type Q } from './database.js'

const isPostgres = (q: Q) => q.getExecutor().adapter instanceof PostgresAdapter

/** An event row as insertEventRows writes it. */
export interface EventRow {
  id: string
  name: string
  board_id: string | null
  data: string
  created_at: string
  audience_id: string | null
}
const EVENT_COLUMNS = ['id', 'name', 'board_id', 'data', 'created_at', 'audience_id'] as const

/**
 * PostgreSQL: an insert of event rows (insertEventRows) → the same insert numbering its rows (commit_seq) after the
 * last number, in their order. The COMMIT's message sends this one in its place, after taking the numbering lock, when
 * every event row of the transaction goes in that message (src/db/postgres.ts): each row is then written once.
 */
export const numberingInserts = new WeakMap<CompiledQuery, CompiledQuery>()

/**
 * Event rows in their order, as one statement whose text is written here, not by Kysely's insert builder: a cascade's
 * chunk writes its events 500 at a time, and building and compiling that insert cost more than SQLite took to run it.
 * The text depends on the number of rows alone (the values are all parameters), so SQLite prepares it once.
 * PostgreSQL numbers seq itself (its identity sequence, since several processes insert at once) and commit_seq when
 * the transaction commits (numberingInserts); SQLite gets both from the last seq (its one writer commits in the order
 * it writes): read first for several rows, in the statement for one.
 */
export async function insertEventRows(q: Q, rows: readonly EventRow[]): Promise<void> {
  if (rows.length === 0) return
  const pg = isPostgres(q)
  const one = !pg && rows.length === 1
  const last = pg || one ? 0 : await lastEventSeq(q)
  const parameters: unknown[] = []
  const tuples: string[] = []
  const numbered: string[] = []
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]
    parameters.push(r.id, r.name, r.board_id, r.data, r.created_at, r.audience_id)
    if (pg) {
      const at = i * EVENT_COLUMNS.length
      const values = `$${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}`
      tuples.push(`(${values})`)
      numbered.push(`(${values}, ${i + 1})`)
    } else if (one) tuples.push('(?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events), (SELECT COALESCE(MAX(seq), 0) + 1 FROM events))')
    else {
      parameters.push(last + i + 1, last + i + 1)
      tuples.push('(?, ?, ?, ?, ?, ?, ?, ?)')
    }
  }
  const columns = EVENT_COLUMNS.join(', ')
  const insert = CompiledQuery.raw(`INSERT INTO events (${columns}${pg ? '' : ', seq, commit_seq'}) VALUES ${tuples.join(', ')}`, parameters)
  if (pg)
    numberingInserts.set(
      insert,
      CompiledQuery.raw(
        `INSERT INTO events (${columns}, commit_seq) SELECT ${EVENT_COLUMNS.map((c) => `r.${c}`).join(', ')}, last.n + r.k ` +
          `FROM (SELECT COALESCE(MAX(commit_seq), 0) AS n FROM events) last, (VALUES ${numbered.join(', ')}) r(${columns}, k)`,
        parameters,
      ),
    )
  await later(q, insert)
}

const lastEventSeq = async (q: Q): Promise<number> =>
  Number(
    (
      await q
        .selectFrom('events')
        .select((eb) => eb.fn.coalesce(eb.fn.max('seq'), sql.lit(0)).as('last'))
        .executeTakeFirstOrThrow()
    ).last,
  )

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
