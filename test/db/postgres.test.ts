// What only PostgreSQL does: a read past TASKD_QUERY_TIMEOUT_MS is stopped by statement_timeout and answers 503, a
// value PostgreSQL refuses (a data exception) answers 400 instead of 500, and a transaction a failed statement aborted
// is never taken for committed; a statement sent ahead fails what follows it with its own error.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { sql } from 'kysely'
import { ahead, later } from '../../src/db/database.js'
import { HttpError } from '../../src/errors.js'
import { openDatabase } from '../../src/db/open.js'
import { seededApp } from '../helpers/app.js'
import { freshDatabase, testDialect } from '../helpers/database.js'

const skip = testDialect !== 'postgres' && 'runs in the PostgreSQL run of npm test'

/** fn on a new database with a table `probe (id TEXT PRIMARY KEY)`; `written` reads its ids. */
async function withProbe(fn: (db: Awaited<ReturnType<typeof openDatabase>>, written: () => Promise<string[]>) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-pg-'))
  const database = await freshDatabase(dir)
  const db = await openDatabase(database)
  try {
    await sql`CREATE TABLE probe (id TEXT PRIMARY KEY)`.execute(db.q)
    await fn(db, async () => (await sql<{ id: string }>`SELECT id FROM probe ORDER BY id`.execute(db.q)).rows.map((r) => r.id))
  } finally {
    await db.close()
    await database.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

test('PostgreSQL: a read past the query timeout is stopped and answers 503 query_timeout; the connection serves on', { skip }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-pg-'))
  const database = await freshDatabase(dir)
  const db = await openDatabase({ ...database, queryTimeoutMs: 200, dbPoolSize: 1 })
  try {
    // An hour's sleep: only the timeout ends it within the test's time.
    await assert.rejects(db.read(db.q.selectNoFrom(sql<number>`pg_sleep(3600)`.as('x'))), (err: unknown) => {
      assert.ok(err instanceof HttpError)
      assert.equal(err.status, 503)
      assert.equal(err.code, 'query_timeout')
      return true
    })
    // The one connection is fine afterwards: the timeout ended with its transaction.
    assert.deepEqual(await db.read(db.q.selectNoFrom(sql<number>`1`.as('x'))), [{ x: 1 }])
  } finally {
    await db.close()
    await database.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('PostgreSQL: a value the database refuses (a number past an int4 column) is a 400 invalid_value, not a 500', { skip }, async () => {
  const { t, tokens } = await seededApp()
  try {
    const r = await t.req('GET', `/v1/cards?filter=${encodeURIComponent('priority > 3000000000')}`, { token: tokens.owner.read })
    assert.equal(r.status, 400, r.text)
    assert.equal(r.body.error.code, 'invalid_value')
  } finally {
    await t.close()
  }
})

test(
  'PostgreSQL: a transaction whose failed statement was caught is refused at commit (its writes are gone); one undone by a savepoint commits',
  { skip },
  () =>
    withProbe(async (db, written) => {
      // The last statement failed and the caller went on: PostgreSQL would answer the COMMIT with a ROLLBACK.
      await assert.rejects(
        db.tx(async ({ q }) => {
          await sql`INSERT INTO probe VALUES ('lost')`.execute(q)
          await sql`SELECT 1 / 0`.execute(q).catch(() => undefined)
        }),
        /rolled back instead of committed/,
      )
      assert.deepEqual(await written(), [], 'the insert before the failure was not written')
      // A failure undone by its savepoint leaves the transaction usable: it commits.
      await db.tx(async (tx) => {
        await sql`INSERT INTO probe VALUES ('kept')`.execute(tx.q)
        await tx.savepoint((sp) => sql`SELECT 1 / 0`.execute(sp.q)).catch(() => undefined)
      })
      assert.deepEqual(await written(), ['kept'], 'the insert beside the undone savepoint was written')
    }),
)

test(
  'PostgreSQL: a statement sent ahead runs before the statements after it; when it fails, they and the commit fail with its error and nothing is written, unless a savepoint undid it',
  { skip },
  () =>
    withProbe(async (db, written) => {
      const divisionByZero = (err: unknown) => {
        assert.ok(err instanceof HttpError, String(err))
        assert.equal(err.status, 400)
        assert.match(err.message, /division by zero/)
        return true
      }
      const seen = await db.tx(async ({ q }) => {
        await ahead(q, sql`INSERT INTO probe VALUES ('first')`)
        return (await sql<{ n: number }>`SELECT COUNT(*) AS n FROM probe`.execute(q)).rows[0].n
      })
      assert.equal(Number(seen), 1, 'the read after it sees its row')
      // Followed by a read: the read fails with the error of the statement ahead, not with "transaction is aborted".
      let read: unknown
      await assert.rejects(
        db.tx(async ({ q }) => {
          await sql`INSERT INTO probe VALUES ('lost')`.execute(q)
          await ahead(q, sql`INSERT INTO probe VALUES ((1 / 0)::text)`)
          await sql`SELECT 1`.execute(q).catch((err: unknown) => {
            read = err
            throw err
          })
        }),
        divisionByZero,
      )
      assert.ok(divisionByZero(read))
      // Followed by nothing: the commit fails with its error.
      await assert.rejects(
        db.tx(async ({ q }) => {
          await later(q, sql`INSERT INTO probe VALUES ('lost too')`)
          await ahead(q, sql`INSERT INTO probe VALUES ((1 / 0)::text)`)
        }),
        divisionByZero,
      )
      assert.deepEqual(await written(), ['first'], 'the failed transactions wrote nothing')
      // Undone by its savepoint: the transaction goes on and commits.
      await db.tx(async (tx) => {
        await sql`INSERT INTO probe VALUES ('kept')`.execute(tx.q)
        await tx.savepoint((sp) => ahead(sp.q, sql`INSERT INTO probe VALUES ((1 / 0)::text)`).then(() => sql`SELECT 1`.execute(sp.q))).catch(() => undefined)
        await later(tx.q, sql`INSERT INTO probe VALUES ('kept too')`)
      })
      assert.deepEqual(await written(), ['first', 'kept', 'kept too'], 'a failure undone by its savepoint fails nothing after it')
    }),
)
