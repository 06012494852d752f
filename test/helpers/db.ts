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

/** Runs a statement (or, with several rows of parameters, runs it once per row in one transaction). */
export async function dbRun(db: Db, text: string, ...params: unknown[]): Promise<void> {
  await db.q.executeQuery(compiled(db, text, params))
}

/** Runs a statement once per row of parameters, in one transaction. */
export async function dbRunMany(db: Db, text: string, rows: unknown[][]): Promise<void> {
  await db.tx(async ({ q }) => {
    for (const params of rows) await q.executeQuery(compiled(db, text, params))
  })
}
