// Group commit: writes queued in one turn of the event loop share one transaction, each caller hears after its commit,
// and a write that fails alone does not fail the others.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { sql } from 'kysely'
import { openDatabase } from '../../src/db/open.js'
import { WriteBatch } from '../../src/db/write-batch.js'

test('a WriteBatch writes the items of one turn in one transaction; a failing item fails only its own caller', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-batch-'))
  const db = await openDatabase({ db: path.join(dir, 'taskd.db'), readWorkers: 0 })
  try {
    await sql`CREATE TABLE batch_test (v TEXT NOT NULL CHECK (v <> 'bad'))`.execute(db.q)
    const batches: string[][] = []
    const batch = new WriteBatch<string>(db, async ({ q }, items) => {
      batches.push([...items])
      for (const v of items) await sql`INSERT INTO batch_test (v) VALUES (${v})`.execute(q)
    })
    await Promise.all(['a', 'b', 'c'].map((v) => batch.add(v)))
    assert.deepEqual(batches, [['a', 'b', 'c']], 'one transaction for the three')

    batches.length = 0
    const results = await Promise.allSettled(['d', 'bad', 'e'].map((v) => batch.add(v)))
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    )
    assert.deepEqual(batches, [['d', 'bad', 'e'], ['d'], ['bad'], ['e']], 'the failed batch, then each item on its own')
    const rows = await sql<{ v: string }>`SELECT v FROM batch_test ORDER BY v`.execute(db.q)
    assert.deepEqual(
      rows.rows.map((r) => r.v),
      ['a', 'b', 'c', 'd', 'e'],
      'nothing of the failed batch stayed twice, nothing of the bad item at all',
    )
  } finally {
    await db.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
