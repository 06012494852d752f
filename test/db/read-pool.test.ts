// The read pool: reads run on worker connections; one past its deadline is stopped (503 query_timeout) and the pool goes on.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { ReadPool, SPAWN_AFTER_MS } from '../../src/db/read-pool.js'
import { openSqlite, type SqliteDb, type SqliteOptions } from '../../src/db/sqlite.js'
import { HttpError } from '../../src/errors.js'

/** This process's children (the read processes among them). */
const children = () => new Set(fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number))

/** Runs fn on a fresh SQLite file with these options, closed and removed afterwards whatever happens. */
async function withFileDb(opts: Omit<SqliteOptions, 'file'>, fn: (db: SqliteDb) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-pool-'))
  const db = openSqlite({ file: path.join(dir, 'taskd.db'), ...opts })
  try {
    await fn(db)
  } finally {
    await db.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

// A deadline counts from when the read is sent, so it includes the start of a replacement process: 3 s leaves a busy
// machine time for that, where 300 ms did not.
test('a read past TASKD_QUERY_TIMEOUT_MS answers 503 query_timeout, and the next reads still work', async () => {
  await withFileDb({ queryTimeoutMs: 3000, readWorkers: 1 }, async (db) => {
    const endless = db.q.selectNoFrom(sql<number>`(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c)`.as('n'))
    const stopped = await db.read(endless).then(
      () => undefined,
      (err: unknown) => err,
    )
    assert.ok(stopped instanceof HttpError, String(stopped))
    assert.equal(stopped.status, 503)
    // The query never ends on its own, so this answer came from the deadline.
    assert.equal(stopped.code, 'query_timeout')
    // The worker stuck in the endless query was replaced: the pool still answers, also for several reads at once.
    const rows = await Promise.all([1, 2, 3].map((i) => db.read(db.q.selectNoFrom(sql<number>`${i}`.as('n')))))
    assert.deepEqual(rows, [[{ n: 1 }], [{ n: 2 }], [{ n: 3 }]])
  })
})

test('a read does not block the main thread: the event loop runs while the read process is stopped', async () => {
  await withFileDb({ queryTimeoutMs: 60_000, readWorkers: 1 }, async (db) => {
    assert.deepEqual(await db.read(db.q.selectNoFrom(sql<number>`${1}`.as('n'))), [{ n: 1 }])
    // With the read process stopped (SIGSTOP) the read cannot end, yet the event loop goes on turning: a read that ran
    // on the main thread would have been answered before the next turn.
    const readers = [...children()]
    assert.equal(readers.length, 1)
    for (const pid of readers) process.kill(pid, 'SIGSTOP')
    let answered = false
    const held = db.read(db.q.selectNoFrom(sql<number>`${5}`.as('n'))).finally(() => (answered = true))
    try {
      await new Promise((r) => setImmediate(r))
      assert.equal(answered, false, 'the event loop turned while the read waited in its stopped process')
    } finally {
      for (const pid of readers) process.kill(pid, 'SIGCONT')
    }
    assert.deepEqual(await held, [{ n: 5 }])
  })
})

test('a read whose process dies answers 503 unavailable (as one whose process cannot start does), and the next reads still work', async () => {
  await withFileDb({ queryTimeoutMs: 60_000, readWorkers: 1 }, async (db) => {
    const endless = db.q.selectNoFrom(sql<number>`(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c)`.as('n'))
    const before = children()
    const read = db.read(endless).then(
      () => undefined,
      (err: unknown) => err,
    )
    // The read's process: the child spawned when the read was asked for.
    const started = [...children()].filter((pid) => !before.has(pid))
    assert.equal(started.length, 1)
    process.kill(started[0], 'SIGKILL')
    const lost = await read
    assert.ok(lost instanceof HttpError, String(lost))
    assert.equal(lost.status, 503)
    assert.equal(lost.code, 'unavailable')
    assert.match(lost.message, /a read process exited unexpectedly/)
    assert.deepEqual(await db.read(db.q.selectNoFrom(sql<number>`${7}`.as('n'))), [{ n: 7 }])
  })
})

test('the write connection and the read processes keep a 2 MB page cache (better-sqlite3 would give each 16 MB)', async () => {
  await withFileDb({ readWorkers: 1 }, async (db) => {
    assert.equal(db.raw.pragma('cache_size', { simple: true }), -2000)
    const [row] = await db.read(db.q.selectNoFrom(sql<number>`(SELECT cache_size FROM pragma_cache_size())`.as('n')))
    assert.deepEqual(row, { n: -2000 })
  })
})

test('many quick reads at once share one read process: another starts only for a read that waited for it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-pool-'))
  const file = path.join(dir, 'taskd.db')
  openSqlite({ file, readWorkers: 0 }).raw.close()
  const before = children()
  // A wait no read here comes near, so that the count of processes does not depend on the machine's speed.
  const pool = new ReadPool(file, 2, 5000, 60_000)
  try {
    const rows = await Promise.all(Array.from({ length: 40 }, async (_, i) => (await pool.all([{ sql: 'SELECT ? AS n', params: [i] }]))[0]))
    assert.deepEqual(
      rows.map((r) => r[0]),
      Array.from({ length: 40 }, (_, n) => ({ n })),
    )
    assert.equal([...children()].filter((pid) => !before.has(pid)).length, 1)
  } finally {
    await pool.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test(`behind a slow read, another read waits ${SPAWN_AFTER_MS} ms, then a second process answers it, not the slow read's end`, async () => {
  await withFileDb({ queryTimeoutMs: 60_000, readWorkers: 2 }, async (db) => {
    const before = children()
    const endless = db.q.selectNoFrom(sql<number>`(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c)`.as('n'))
    let slowEnded = false
    // Ends when the pool closes, which kills its process.
    void db.read(endless).then(
      () => (slowEnded = true),
      () => (slowEnded = true),
    )
    const started = performance.now()
    const quick = db.read(db.q.selectNoFrom(sql<number>`1`.as('n')))
    const readProcesses = () => [...children()].filter((pid) => !before.has(pid)).length
    assert.equal(readProcesses(), 1, 'no second process as soon as a read waits')
    assert.deepEqual(await quick, [{ n: 1 }])
    assert.ok(performance.now() - started >= SPAWN_AFTER_MS, 'the quick read first waited for the busy process')
    assert.equal(readProcesses(), 2)
    assert.equal(slowEnded, false, 'answered by another process while the slow read still runs')
  })
})

test('readAll answers reads that belong together (a page and its total) with the rows of each, in order, from one read process', async () => {
  await withFileDb({ readWorkers: 2 }, async (db) => {
    await db.tx(async ({ q }) => {
      await q.insertInto('users').values({ id: 'u1', email: 'a@x', name: 'Ann', role: 'owner', kind: 'human', created_at: '2026-01-01' }).execute()
      await q.insertInto('users').values({ id: 'u2', email: 'b@x', name: 'Bob', role: 'member', kind: 'human', created_at: '2026-01-02' }).execute()
    })
    const before = children()
    const [[total], page] = await db.readAll([
      db.q.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')),
      db.q.selectFrom('users').select('name').orderBy('name', 'desc').limit(1),
    ])
    assert.deepEqual(total, { n: 2 })
    assert.deepEqual(page, [{ name: 'Bob' }])
    assert.equal([...children()].filter((pid) => !before.has(pid)).length, 1, 'one process for both')
    // A failing read fails the whole answer, and the pool goes on.
    const failed = await db.readAll([db.q.selectFrom('users').select('id'), db.q.selectNoFrom(sql<number>`(SELECT n FROM no_such_table)`.as('n'))]).then(
      () => undefined,
      (err: unknown) => err,
    )
    assert.match(String(failed), /no such table/)
    assert.deepEqual(await db.read(db.q.selectFrom('users').select('id').orderBy('id')), [{ id: 'u1' }, { id: 'u2' }])
  })
})

test('a read process answers in the order it was sent, and skips a read the pool took back before it started', async () => {
  await withFileDb({ readWorkers: 0 }, async (db) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('../../src/db/read-worker.js', import.meta.url))], {
      env: { ...process.env, TASKD_READ_DB: db.raw.name },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    try {
      const answers: { id: number; rows?: unknown[][]; skipped?: boolean }[] = []
      const all = new Promise<void>((resolve) => child.on('message', (m: (typeof answers)[number]) => answers.push(m) === 3 && resolve()))
      // The first read runs long enough that the skip of the second is there before the second could start.
      const slow = 'SELECT (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) SELECT count(*) FROM c) AS n'
      child.send({ id: 1, statements: [{ sql: slow, params: [] }] })
      child.send({ id: 2, statements: [{ sql: 'SELECT 2 AS n', params: [] }] })
      child.send({ id: 3, statements: [{ sql: 'SELECT 3 AS n', params: [] }] })
      child.send({ skip: 2 })
      await all
      assert.deepEqual(answers, [
        { id: 1, rows: [[{ n: 300000 }]] },
        { id: 2, skipped: true },
        { id: 3, rows: [[{ n: 3 }]] },
      ])
    } finally {
      child.kill('SIGKILL')
    }
  })
})

test('a read waiting behind one that times out is answered with its own rows by the process that replaces it', async () => {
  await withFileDb({ queryTimeoutMs: 3000, readWorkers: 1 }, async (db) => {
    const endless = db.q.selectNoFrom(sql<number>`(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c)`.as('n'))
    const stopped = db.read(endless).then(
      () => undefined,
      (err: unknown) => err,
    )
    // Sent behind the endless read (one process, busy), kept there (no other process may start), then put back.
    const quick = db.read(db.q.selectNoFrom(sql<number>`${42}`.as('n')))
    assert.deepEqual(await quick, [{ n: 42 }])
    const err = await stopped
    assert.ok(err instanceof HttpError && err.code === 'query_timeout', String(err))
  })
})

test("a read process that turns idle takes a read waiting behind another process's slow read", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-pool-'))
  const file = path.join(dir, 'taskd.db')
  openSqlite({ file, readWorkers: 0 }).raw.close()
  const before = children()
  const readProcesses = () => [...children()].filter((pid) => !before.has(pid))
  // How long a read waits behind a busy process before it is taken back to go elsewhere.
  // The deadline is far off: the stopped process's read is on its clock while a second process starts.
  const takeBackAfter = 100
  const pool = new ReadPool(file, 2, 60_000, takeBackAfter)
  const one = async (n: number) => (await pool.all([{ sql: 'SELECT ? AS n', params: [n] }]))[0]
  let first: number | undefined
  try {
    assert.deepEqual(await one(1), [{ n: 1 }])
    ;[first] = readProcesses()
    // The first process stopped: the read sent to it waits there, and the one sent behind it is taken back after
    // takeBackAfter and answered by a second process.
    process.kill(first, 'SIGSTOP')
    const held = Promise.allSettled([one(2)])
    assert.deepEqual(await one(3), [{ n: 3 }])
    assert.equal(readProcesses().length, 2)
    // The second process runs an endless read. The next read is sent behind it (the first process has two already)
    // and stays there: no other process may start, and none is idle.
    let endlessEnded = false
    const endless = 'SELECT (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c) AS n'
    void pool.all([{ sql: endless, params: [] }]).then(
      () => (endlessEnded = true),
      () => (endlessEnded = true),
    )
    const waiting = Promise.allSettled([one(4)])
    // Its take-back comes while every process is busy (the first one stopped), so it does nothing, and nothing else
    // would move the read before the endless one ends. A timer of the same length set after it fires after it.
    await new Promise((r) => setTimeout(r, takeBackAfter))
    // The first process goes on: it answers its read, skips the one taken back and, idle, takes the waiting read.
    process.kill(first, 'SIGCONT')
    assert.deepEqual(await held, [{ status: 'fulfilled', value: [{ n: 2 }] }])
    assert.deepEqual(await waiting, [{ status: 'fulfilled', value: [{ n: 4 }] }])
    assert.equal(endlessEnded, false, 'answered while the endless read still runs, not when it times out')
  } finally {
    // Gone already if the pool killed it; close() kills the busy processes (a stopped one too).
    if (first)
      try {
        process.kill(first, 'SIGCONT')
      } catch {}
    await pool.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
