// The job runner, once for every queue that uses it: a small queue of its own on a real database (either dialect), two
// runners on two connection pools racing for it, a lease running out mid-attempt, stop during an attempt, hand-back,
// and idle polls that take no write lock.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { sql } from 'kysely'
import type { Db, Q } from '../../src/db/database.js'
import { openDatabase } from '../../src/db/open.js'
import { JobRunner, type JobQueue, type JobRunnerOptions } from '../../src/jobs/runner.js'
import { freshDatabase } from '../helpers/database.js'
import { dbAll, dbRun } from '../helpers/db.js'
import { until } from '../helpers/until.js'

interface Job {
  id: string
}

interface Row {
  id: string
  status: string
  recorded: number
  claims: number
  lease_until: number
}

const LEASE_MS = 1000

/** A queue over a table of the test's own, spelled like the stores': due, lease_until < now, SKIP LOCKED on PostgreSQL. */
function testQueue(db: Db): JobQueue<Job> {
  const skipLocked = sql.raw(db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '')
  const due = (now: number) => sql`status = 'pending' AND due_at <= ${now} AND lease_until < ${now}`
  return {
    hasDue: async (q, now) => (await sql`SELECT id FROM test_jobs WHERE ${due(now)} LIMIT 1`.execute(q)).rows.length > 0,
    claim: async (q, now, leaseUntil, limit) =>
      (
        await sql<Job>`UPDATE test_jobs SET lease_until = ${leaseUntil}, claims = claims + 1
          WHERE id IN (SELECT id FROM test_jobs WHERE ${due(now)} ORDER BY due_at, id LIMIT ${limit}${skipLocked}) AND lease_until < ${now}
          RETURNING id`.execute(q)
      ).rows,
    nextDueAt: async (q, now) => {
      const row = (await sql<{ t: number | string | null }>`SELECT MIN(due_at) AS t FROM test_jobs WHERE status = 'pending' AND due_at > ${now}`.execute(q))
        .rows[0]
      return row?.t == null ? undefined : Number(row.t)
    },
    // A hand-back is not an attempt: the claim it took does not count.
    release: async (q, ids) => {
      if (ids.length) await sql`UPDATE test_jobs SET lease_until = 0, claims = claims - 1 WHERE id IN (${sql.join(ids)})`.execute(q)
    },
  }
}

/** Records a job's result, once: a late writer (whose lease ran out) changes nothing. */
const record = (q: Q, id: string) => sql`UPDATE test_jobs SET status = 'done', recorded = recorded + 1 WHERE id = ${id} AND status = 'pending'`.execute(q)

interface World {
  /**
   * Two connection pools on the same database, as two processes would have, on PostgreSQL. On SQLite, where one
   * process serves a file, both are its one connection (a second one in the same process would wait synchronously
   * for the first's write lock, which its group commit holds until the next turn of the event loop).
   */
  dbs: [Db, Db]
  /** Another connection pool, closed at the end. */
  open(): Promise<Db>
  clock: { t: number; now(): number }
  /** Attempts per job id, by any runner. */
  runs: Map<string, number>
  logged: string[]
  runner(db: Db, opts?: Partial<JobRunnerOptions<Job>>): JobRunner<Job>
  rows(): Promise<Row[]>
  addJobs(n: number): Promise<void>
}

async function withWorld(fn: (w: World) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-jobs-'))
  const database = await freshDatabase(dir)
  const open = () => openDatabase({ db: database.db, databaseUrl: database.databaseUrl, log: () => {} })
  const first = await open()
  const dbs: [Db, Db] = [first, first.dialect === 'postgres' ? await open() : first]
  const opened = new Set(dbs)
  const runners: JobRunner<Job>[] = []
  const clock = { t: 1_800_000_000_000, now: () => clock.t }
  const w: World = {
    dbs,
    async open() {
      const db = await open()
      opened.add(db)
      return db
    },
    clock,
    runs: new Map(),
    logged: [],
    runner(db, opts = {}) {
      const r = new JobRunner<Job>(
        { db, clock },
        {
          name: 'test jobs',
          queue: testQueue(db),
          run: async (job) => {
            w.runs.set(job.id, (w.runs.get(job.id) ?? 0) + 1)
            await record(db.q, job.id)
          },
          concurrency: 4,
          pollMs: 1000,
          leaseMs: LEASE_MS,
          log: (msg, err) => w.logged.push(`${msg}: ${String(err)}`),
          ...opts,
        },
      )
      runners.push(r)
      return r
    },
    rows: () => dbAll<Row>(first, 'SELECT id, status, recorded, claims, lease_until FROM test_jobs ORDER BY id'),
    async addJobs(n) {
      for (let i = 0; i < n; i++)
        await dbRun(
          first,
          "INSERT INTO test_jobs (id, status, due_at, lease_until, claims, recorded) VALUES (?, 'pending', ?, 0, 0, 0)",
          `j${String(i).padStart(3, '0')}`,
          clock.t,
        )
    },
  }
  try {
    await dbRun(
      first,
      'CREATE TABLE test_jobs (id TEXT PRIMARY KEY, status TEXT NOT NULL, due_at BIGINT NOT NULL, lease_until BIGINT NOT NULL, claims INTEGER NOT NULL, recorded INTEGER NOT NULL)',
    )
    await fn(w)
  } finally {
    try {
      for (const r of runners) await r.stop(1000)
      for (const db of opened) await db.close()
      await database.drop()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** A promise to hold an attempt open, and the function that lets it go. */
function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void
  const wait = new Promise<void>((r) => (open = r))
  return { wait, open }
}

test('two runners on two connection pools race for the same jobs: each job runs exactly once', () =>
  withWorld(async (w) => {
    await w.addJobs(60)
    const [a, b] = [w.runner(w.dbs[0]), w.runner(w.dbs[1])]
    const [na, nb] = await Promise.all([a.runOnce(), b.runOnce()])
    assert.equal(na + nb, 60)
    assert.ok(na > 0 && nb > 0, `both runners took part (${na} and ${nb})`)
    assert.equal(w.runs.size, 60)
    assert.deepEqual([...new Set(w.runs.values())], [1], 'no job ran twice')
    const rows = await w.rows()
    assert.deepEqual([...new Set(rows.map((r) => `${r.status} ${r.recorded} ${r.claims}`))], ['done 1 1'])
    assert.deepEqual(w.logged, [])
  }))

test('a lease that runs out mid-attempt: another runner takes the job, and the late result is not recorded twice', () =>
  withWorld(async (w) => {
    await w.addJobs(1)
    const held = gate()
    let started = false
    const a = w.runner(w.dbs[0], {
      run: async (job) => {
        started = true
        w.runs.set(job.id, (w.runs.get(job.id) ?? 0) + 1)
        await held.wait
        await record(w.dbs[0].q, job.id)
      },
    })
    const b = w.runner(w.dbs[1])
    const first = a.runOnce()
    await until('the attempt to start', () => started)
    assert.equal(await b.runOnce(), 0, 'the lease holds to its last millisecond')
    w.clock.t += LEASE_MS
    assert.equal(await b.runOnce(), 0)
    w.clock.t += 1
    assert.equal(await b.runOnce(), 1, 'claimed again once the lease ran out')
    held.open()
    assert.equal(await first, 1)
    assert.equal(w.runs.get('j000'), 2)
    assert.deepEqual(
      (await w.rows()).map((r) => [r.status, r.recorded, r.claims]),
      [['done', 1, 2]],
    )
    assert.equal(await a.runOnce(), 0)
  }))

test('stop during an attempt: it finishes within the grace period; unstarted claims are handed back, uncounted, and taken at once', () =>
  withWorld(async (w) => {
    await w.addJobs(3)
    const held = gate()
    let started = 0
    const a = w.runner(w.dbs[0], {
      concurrency: 1,
      claimAhead: 3,
      run: async (job) => {
        started++
        w.runs.set(job.id, (w.runs.get(job.id) ?? 0) + 1)
        await held.wait
        await record(w.dbs[0].q, job.id)
      },
    })
    const running = a.runOnce()
    await until('the attempt to start', () => started === 1)
    assert.deepEqual(
      (await w.rows()).map((r) => r.claims),
      [1, 1, 1],
      'three claimed ahead, one started',
    )
    const stopped = a.stop(60_000)
    held.open()
    await stopped
    await running
    const rows = await w.rows()
    assert.deepEqual(
      rows.map((r) => [r.status, r.recorded, r.claims, r.lease_until]),
      [
        ['done', 1, 1, rows[0].lease_until],
        ['pending', 0, 0, 0],
        ['pending', 0, 0, 0],
      ],
      'the attempt in flight finished; the others were handed back without counting their claim',
    )
    assert.equal(started, 1)
    assert.equal(await a.runOnce(), 0, 'a stopped runner claims nothing')
    const b = w.runner(w.dbs[1])
    assert.equal(await b.runOnce(), 2, 'the next runner takes the handed-back jobs at once, before any lease would run out')
    assert.deepEqual(
      (await w.rows()).map((r) => [r.status, r.recorded, r.claims]),
      [
        ['done', 1, 1],
        ['done', 1, 1],
        ['done', 1, 1],
      ],
    )
    assert.deepEqual(w.logged, [])
  }))

test('stop while a claim is under way: the jobs that claim took are handed back, and none runs after stop', () =>
  withWorld(async (w) => {
    await w.addJobs(2)
    const [db] = w.dbs
    const inClaim = gate()
    const release = gate()
    const queue = testQueue(db)
    const a = w.runner(db, {
      queue: {
        ...queue,
        claim: async (q, now, leaseUntil, limit) => {
          const jobs = await queue.claim(q, now, leaseUntil, limit)
          inClaim.open()
          await release.wait
          return jobs
        },
      },
    })
    const running = a.runOnce()
    await inClaim.wait
    const stopped = a.stop(60_000)
    release.open()
    await stopped
    await running
    assert.equal(w.runs.size, 0, 'nothing ran after stop began')
    assert.deepEqual(
      (await w.rows()).map((r) => [r.status, r.claims, r.lease_until]),
      [
        ['pending', 0, 0],
        ['pending', 0, 0],
      ],
      'both claims handed back, uncounted',
    )
    assert.equal(await w.runner(w.dbs[1]).runOnce(), 2, 'the next runner takes them at once')
  }))

test('a claimed batch whose preparation fails is handed back at once, not left to its lease', () =>
  withWorld(async (w) => {
    await w.addJobs(2)
    let failing = true
    const a = w.runner(w.dbs[0], {
      onClaimed: async () => {
        if (failing) throw new Error('connection lost')
      },
    })
    assert.equal(await a.runOnce(), 0)
    assert.deepEqual(
      (await w.rows()).map((r) => [r.status, r.claims, r.lease_until]),
      [
        ['pending', 0, 0],
        ['pending', 0, 0],
      ],
    )
    assert.match(w.logged.join('\n'), /preparing claimed jobs failed; handing them back: Error: connection lost/)
    failing = false
    assert.equal(await a.runOnce(), 2, 'claimed again without waiting for a lease')
  }))

test('an idle poll is a plain read: no write transaction, and a write held by another connection does not hold it up', () =>
  withWorld(async (w) => {
    const [db] = w.dbs
    let txs = 0
    const counted: Db = {
      dialect: db.dialect,
      q: db.q,
      tx: (fn) => {
        txs++
        return db.tx(fn)
      },
      read: (query) => db.read(query),
      readAll: (queries) => db.readAll(queries),
      backup: (dest, onProgress) => db.backup(dest, onProgress),
      wakes: db.wakes,
      wake: (channel, what) => db.wake(channel, what),
      close: () => db.close(),
    }
    const runner = w.runner(counted)
    await w.addJobs(1)
    assert.equal(await runner.runOnce(), 1)
    assert.equal(txs, 1, 'one claim transaction when something was due')
    // Another connection holds the write lock (on SQLite, BEGIN IMMEDIATE) while the runner polls with nothing due.
    await new Promise((r) => setImmediate(r)) // the runner's connection has committed its last group
    const other = await w.open()
    const held = gate()
    let writing = false
    const writer = other.tx(async ({ q }) => {
      await sql`UPDATE test_jobs SET due_at = due_at WHERE id = 'j000'`.execute(q)
      writing = true
      await held.wait
    })
    await until('the other connection to hold the write', () => writing)
    try {
      assert.equal(await runner.runOnce(), 0)
      assert.equal(await runner.runOnce(), 0)
    } finally {
      held.open()
      await writer
    }
    assert.equal(txs, 1, 'idle polls opened no transaction')
    assert.deepEqual(w.logged, [])
  }))
