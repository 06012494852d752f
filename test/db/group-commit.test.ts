// SQLite group commit (src/db/sqlite.ts, FairDriver): transactions of one turn share a COMMIT, each caller hears of
// its own only once it is committed (another connection sees it then), and one that fails undoes only its own changes.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { sql } from 'kysely'
import type { Db } from '../../src/db/database.js'
import { openDatabase } from '../../src/db/open.js'

/** A fresh database with `CREATE TABLE group_test (<column>)`, and what another connection sees of it (committed rows). */
async function withTable(column: string, fn: (t: { db: Db; dir: string; committed: () => string[] }) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-group-'))
  const file = path.join(dir, 'taskd.db')
  const db = await openDatabase({ db: file, readWorkers: 0 })
  let other: Database.Database | undefined
  try {
    await sql.raw(`CREATE TABLE group_test (${column})`).execute(db.q)
    other = new Database(file, { readonly: true })
    const reader = other.prepare('SELECT v FROM group_test ORDER BY v')
    await fn({ db, dir, committed: () => (reader.all() as { v: string }[]).map((r) => r.v) })
  } finally {
    other?.close()
    await db.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

test('transactions of one turn share a commit; each resolves once committed, a failing one undoes only itself', () =>
  withTable("v TEXT NOT NULL CHECK (v <> 'bad')", async ({ db, dir, committed: seenByOther }) => {
    const committedAtAnswer = new Map<string, string[]>()
    let afterCommit = 0
    const write = (v: string) =>
      db
        .tx(async (tx) => {
          tx.afterCommit(() => afterCommit++)
          await sql`INSERT INTO group_test (v) VALUES (${`${v}-1`})`.execute(tx.q)
          await sql`INSERT INTO group_test (v) VALUES (${v})`.execute(tx.q) // 'bad' fails here, after its first row
          return v
        })
        .then((r) => {
          committedAtAnswer.set(v, seenByOther())
          return r
        })
    const results = await Promise.allSettled(['a', 'bad', 'c', 'd'].map(write))
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    )
    const all = ['a', 'a-1', 'c', 'c-1', 'd', 'd-1']
    assert.deepEqual(seenByOther(), all, 'nothing of the failed transaction, not even its first row')
    for (const v of ['a', 'c', 'd']) assert.deepEqual(committedAtAnswer.get(v), all, `${v} answered before the group committed`)
    assert.equal(afterCommit, 3, 'after-commit hooks of the committed transactions only')

    // A backup while a group is open commits the group first (a backup begins its own read transaction).
    const pending = write('e')
    const dest = path.join(dir, 'copy.db')
    await db.backup(dest)
    await pending
    const copy = new Database(dest, { readonly: true })
    try {
      assert.equal((copy.prepare("SELECT count(*) AS n FROM group_test WHERE v IN ('e', 'e-1')").get() as { n: number }).n, 2, 'the group went in first')
    } finally {
      copy.close()
    }
  }))

test('100 transactions at once, each awaiting between its statements: all commit, the last sees every row', () =>
  withTable('v INTEGER NOT NULL', async ({ db, committed }) => {
    const sums = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        db.tx(async (tx) => {
          await sql`INSERT INTO group_test (v) VALUES (${i})`.execute(tx.q)
          await new Promise((r) => setImmediate(r))
          return (await sql<{ n: number }>`SELECT count(*) AS n FROM group_test`.execute(tx.q)).rows[0].n
        }),
      ),
    )
    assert.equal(Math.max(...sums), 100)
    const n = (await sql<{ n: number }>`SELECT count(*) AS n FROM group_test`.execute(db.q)).rows[0].n
    assert.equal(n, 100)
    assert.equal(committed().length, 100)
  }))

test('a statement that writes outside a transaction commits the open group first', () =>
  withTable('v TEXT NOT NULL', async ({ db, committed }) => {
    const pending = db.tx(async (tx) => {
      await sql`INSERT INTO group_test (v) VALUES ('in a transaction')`.execute(tx.q)
    })
    await new Promise<void>((resolve) => queueMicrotask(resolve))
    await sql`INSERT INTO group_test (v) VALUES ('plain')`.execute(db.q)
    assert.deepEqual(committed(), ['in a transaction', 'plain'], 'both durable when the plain write returns')
    await pending
  }))

test('when SQLite undoes the whole group (disk full), every member hears its error and the server goes on', () =>
  withTable('v BLOB NOT NULL', async ({ db }) => {
    const pages = (await sql<{ page_count: number }>`PRAGMA page_count`.execute(db.q)).rows[0].page_count
    await sql.raw(`PRAGMA max_page_count = ${pages + 8}`).execute(db.q)
    const small = db.tx(async (tx) => {
      await sql`INSERT INTO group_test (v) VALUES (zeroblob(10))`.execute(tx.q)
    })
    const big = db.tx(async (tx) => {
      await sql`INSERT INTO group_test (v) VALUES (zeroblob(1000000))`.execute(tx.q)
    })
    const third = db.tx(async (tx) => {
      await sql`INSERT INTO group_test (v) VALUES (zeroblob(1000000))`.execute(tx.q)
    })
    const results = await Promise.allSettled([small, big, third])
    // A transaction alone in its group, undone with it: nobody else waits for that group (it must not end the process).
    await assert.rejects(
      db.tx(async (tx) => {
        await sql`INSERT INTO group_test (v) VALUES (zeroblob(1000000))`.execute(tx.q)
      }),
      /full/i,
    )
    await new Promise((resolve) => setImmediate(resolve))
    for (const r of results.slice(1)) assert.match(String((r as PromiseRejectedResult).reason), /full/i)
    if (results[0].status === 'rejected') assert.match(String(results[0].reason), /full/i, 'a member undone with the group hears why')
    // Nothing is left half-done, and the connection takes new transactions.
    await sql.raw('PRAGMA max_page_count = 1000000').execute(db.q)
    await db.tx(async (tx) => {
      await sql`INSERT INTO group_test (v) VALUES (zeroblob(1))`.execute(tx.q)
    })
    const n = (await sql<{ n: number }>`SELECT count(*) AS n FROM group_test WHERE length(v) > 100`.execute(db.q)).rows[0].n
    assert.equal(n, 0)
  }))
