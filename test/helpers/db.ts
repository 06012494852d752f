// SQL for tests that look at the database directly, on either dialect: write `?` placeholders; on PostgreSQL they
// become $1, $2, ... Prefer the API; use these only to check what the API cannot show (events, outbox rows, stored secrets).
import { CompiledQuery } from 'kysely'
import type { Db } from '../../src/db/database.js'

const compiled = (db: Db, text: string, params: unknown[]) => {
  let n = 0
  return CompiledQuery.raw(db.dialect === 'postgres' ? text.replace(/\?/g, () => `$${++n}`) : text, params)
}

/** Every row of a statement. */
export const dbAll = async <R = Record<string, unknown>>(db: Db, text: string, ...params: unknown[]): Promise<R[]> =>
  (await db.q.executeQuery(compiled(db, text, params))).rows as R[]

/** The first row of a statement, or undefined. */
export const dbGet = async <R = Record<string, unknown>>(db: Db, text: string, ...params: unknown[]): Promise<R | undefined> =>
  (await dbAll<R>(db, text, ...params))[0]

/** Runs a statement. */
export async function dbRun(db: Db, text: string, ...params: unknown[]): Promise<void> {
  await db.q.executeQuery(compiled(db, text, params))
}

/** Runs a statement once per row of parameters, in one transaction. */
export async function dbRunMany(db: Db, text: string, rows: unknown[][]): Promise<void> {
  await db.tx(async ({ q }) => {
    for (const params of rows) await q.executeQuery(compiled(db, text, params))
  })
}

/**
 * Counts the writes to one row from now on, to prove that something did not write, or wrote once: call the function it
 * returns later. SQLite: every row any statement changed on the connection (total_changes(); the app writes on this one
 * connection), in any table. PostgreSQL: each UPDATE or DELETE of that row, recorded by a trigger this adds to the test's
 * own database (the row's xmin would only tell whether it changed, not how many times).
 */
export async function countWrites(db: Db, table: string, id: string): Promise<() => Promise<number>> {
  let count: () => Promise<number>
  if (db.dialect === 'postgres') {
    await dbRun(db, 'CREATE TABLE IF NOT EXISTS test_writes (tbl TEXT NOT NULL, id TEXT NOT NULL)')
    await dbRun(
      db,
      'CREATE OR REPLACE FUNCTION test_count_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO test_writes VALUES (TG_TABLE_NAME, OLD.id); RETURN NULL; END $$',
    )
    await dbRun(db, `DROP TRIGGER IF EXISTS test_count_writes ON ${table}`)
    await dbRun(db, `CREATE TRIGGER test_count_writes AFTER UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION test_count_write()`)
    count = async () => Number((await dbGet<{ n: number }>(db, 'SELECT count(*) AS n FROM test_writes WHERE tbl = ? AND id = ?', table, id))!.n)
  } else {
    count = async () => Number((await dbGet<{ n: number }>(db, 'SELECT total_changes() AS n'))!.n)
  }
  const start = await count()
  return async () => (await count()) - start
}
