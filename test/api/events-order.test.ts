// The event log's order on PostgreSQL, where a transaction's event rows are numbered (commit_seq) in its COMMIT's
// message: rows held to the COMMIT, sent before it, in savepoints kept and undone, beside a statement sent `ahead` that
// fails; two transactions committing in the other order than they wrote; the prepared numbering insert; a connection
// lost mid-transaction; and, on both dialects, an event written before the events its hook causes.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { sql } from 'kysely'
import { ahead, inTransaction, together } from '../../src/db/database.js'
import type { Db, Tx } from '../../src/db/database.js'
import { openDatabase } from '../../src/db/open.js'
import { messageObservers } from '../../src/db/postgres.js'
import type { Deps } from '../../src/deps.js'
import { emitEvent } from '../../src/events/emit.js'
import { insertEvents } from '../../src/events/store.js'
import { newId } from '../../src/ids.js'
import { freshDatabase, testDialect } from '../helpers/database.js'
import { dbAll } from '../helpers/db.js'
import { seededApp } from '../helpers/app.js'

const skip = testDialect !== 'postgres' && 'runs in the PostgreSQL run of npm test'

async function withDb(fn: (db: Db) => Promise<void>, opts: { dbPoolSize?: number } = {}): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-events-order-'))
  const database = await freshDatabase(dir)
  const db = await openDatabase({ ...database, ...opts })
  try {
    await fn(db)
  } finally {
    await db.close()
    await database.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Event rows named `names`, written as emitEvents writes them (one insert, held), and the events wake. */
async function write(tx: Tx, ...names: string[]): Promise<void> {
  const at = new Date().toISOString()
  await insertEvents(
    tx.q,
    names.map((name) => ({ id: newId(), name, boardId: null, data: JSON.stringify({ name, odd: "it's $1 \\ E'x' $$ -- /*" }), at })),
  )
  tx.wake('events', 'workspace')
}

/** The events by commit_seq: their names, and whether any row has no commit_seq. */
async function log(db: Db): Promise<{ names: string[]; seqs: number[]; unnumbered: number }> {
  const rows = await dbAll<{ name: string; commit_seq: number | null }>(db, 'SELECT name, commit_seq FROM events ORDER BY commit_seq, seq')
  return {
    names: rows.filter((r) => r.commit_seq !== null).map((r) => r.name),
    seqs: rows.filter((r) => r.commit_seq !== null).map((r) => Number(r.commit_seq)),
    unnumbered: rows.filter((r) => r.commit_seq === null).length,
  }
}

const consecutive = (seqs: number[]) => seqs.every((s, i) => i === 0 || s === seqs[i - 1] + 1)

test('events sent before the COMMIT, held to it, and in savepoints kept and undone: every row numbered once, in the order written', { skip }, () =>
  withDb(async (db) => {
    // Held to the COMMIT only: numbered by their inserts.
    await db.tx(async (tx) => {
      await sql`SELECT 1`.execute(tx.q)
      await write(tx, 'a1', 'a2')
      await write(tx, 'a3')
    })
    // Sent early (a read after them), a savepoint kept, one undone, then held to the COMMIT: NUMBER_EVENTS.
    await db.tx(async (tx) => {
      await write(tx, 'b1')
      await sql`SELECT 1`.execute(tx.q)
      await tx.savepoint(async (sp) => write(sp, 'b2'))
      await tx
        .savepoint(async (sp) => {
          await write(sp, 'undone')
          throw new Error('undo')
        })
        .catch(() => undefined)
      await write(tx, 'b3')
    })
    // Only an undone savepoint wrote events: the lock and the UPDATE, nothing numbered.
    await db.tx(async (tx) => {
      await sql`SELECT 1`.execute(tx.q)
      await tx
        .savepoint(async (sp) => {
          await write(sp, 'undone too')
          throw new Error('undo')
        })
        .catch(() => undefined)
    })
    // Held again, after those.
    await db.tx(async (tx) => {
      await sql`SELECT 1`.execute(tx.q)
      await write(tx, 'c1')
    })
    const { names, seqs, unnumbered } = await log(db)
    assert.deepEqual(names, ['a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'c1'])
    assert.equal(unnumbered, 0)
    assert.ok(consecutive(seqs), `commit_seq without gaps: ${seqs.join(', ')}`)
  }),
)

test('the numbering insert prepared (the same text sent again on one connection): literals with quotes, backslashes and $n go in whole', { skip }, () =>
  withDb(
    async (db) => {
      const messages: string[] = []
      const see = (text: string) => void messages.push(text)
      messageObservers.add(see)
      try {
        for (let i = 0; i < 6; i++)
          await db.tx(async (tx) => {
            await sql`SELECT 1`.execute(tx.q)
            await write(tx, `p${i}`)
          })
      } finally {
        messageObservers.delete(see)
      }
      // Behind a transaction pooler (TASKD_TEST_POOLER_URL) statements are never prepared.
      if (!process.env.TASKD_TEST_POOLER_URL) {
        assert.ok(
          messages.some((m) => /PREPARE taskd_\w+ AS INSERT INTO events .*last\.n \+ r\.k/s.test(m)),
          'the numbering insert was prepared',
        )
        assert.ok(
          messages.filter((m) => /pg_advisory_xact_lock[\s\S]*EXECUTE taskd_\w+\('/.test(m) || /EXECUTE taskd_\w+\('[^']*', 'p\d'/.test(m)).length >= 2,
          'and run by EXECUTE',
        )
      }
      const { names, unnumbered } = await log(db)
      assert.deepEqual(names, ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'])
      assert.equal(unnumbered, 0)
      const data = await dbAll<{ data: string }>(db, 'SELECT data FROM events ORDER BY commit_seq LIMIT 1')
      assert.equal(JSON.parse(data[0].data).odd, "it's $1 \\ E'x' $$ -- /*")
    },
    { dbPoolSize: 1 },
  ),
)

test('two transactions: the one that wrote its event first (sent early) commits last; the other numbers with its inserts; commit order holds', { skip }, () =>
  withDb(async (db) => {
    let wroteA!: () => void
    const aWrote = new Promise<void>((r) => (wroteA = r))
    let goA!: () => void
    const aGoes = new Promise<void>((r) => (goA = r))
    const a = db.tx(async (tx) => {
      await write(tx, 'A (written first)')
      await sql`SELECT 1`.execute(tx.q) // sends A's row, unnumbered
      wroteA()
      await aGoes
      await write(tx, 'A held')
    })
    await aWrote
    await db.tx(async (tx) => {
      await sql`SELECT 1`.execute(tx.q)
      await write(tx, 'B (held to its COMMIT)')
    })
    // A reader between the two commits: B's event alone is numbered, and A's row is not visible at all.
    const between = await log(db)
    assert.deepEqual(between.names, ['B (held to its COMMIT)'])
    goA()
    await a
    const { names, seqs, unnumbered } = await log(db)
    assert.deepEqual(names, ['B (held to its COMMIT)', 'A (written first)', 'A held'])
    assert.equal(unnumbered, 0)
    assert.ok(consecutive(seqs))
  }),
)

test('many concurrent writers, half sending their rows early, half holding them: commit_seq dense, no row left unnumbered', { skip }, () =>
  withDb(async (db) => {
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        db.tx(async (tx) => {
          await sql`SELECT 1`.execute(tx.q)
          await write(tx, `w${i}a`, `w${i}b`)
          if (i % 2) await sql`SELECT pg_sleep(0.01)`.execute(tx.q)
          await write(tx, `w${i}c`)
        }),
      ),
    )
    const { names, seqs, unnumbered } = await log(db)
    assert.equal(unnumbered, 0)
    assert.equal(names.length, 72)
    assert.ok(consecutive(seqs))
    // Each transaction's rows are consecutive, in the order written.
    for (let i = 0; i < 24; i++) {
      const at = names.indexOf(`w${i}a`)
      assert.deepEqual(names.slice(at, at + 3), [`w${i}a`, `w${i}b`, `w${i}c`])
    }
  }),
)

test(
  'a statement sent ahead that fails, with event rows held before and after it: nothing written, the error its own, the next commit numbers on',
  { skip },
  () =>
    withDb(async (db) => {
      await assert.rejects(
        db.tx(async (tx) => {
          await sql`SELECT 1`.execute(tx.q)
          await write(tx, 'before ahead')
          await ahead(tx.q, sql`SELECT 1 / 0`)
          await write(tx, 'after ahead')
        }),
        /division by zero/,
      )
      // A read started together while the statement ahead runs: it fails with the error ahead, and so does the tx.
      await assert.rejects(
        db.tx(async (tx) => {
          await sql`SELECT 1`.execute(tx.q)
          await ahead(tx.q, sql`SELECT 1 / 0`)
          await write(tx, 'held')
          await sql`SELECT 2`.execute(tx.q)
        }),
        /division by zero/,
      )
      // Undone by a savepoint: the events around it are written and numbered.
      await db.tx(async (tx) => {
        await sql`SELECT 1`.execute(tx.q)
        await write(tx, 'kept 1')
        await tx.savepoint(async (sp) => ahead(sp.q, sql`SELECT 1 / 0`)).catch(() => undefined)
        await write(tx, 'kept 2')
      })
      const { names, unnumbered } = await log(db)
      assert.deepEqual(names, ['kept 1', 'kept 2'])
      assert.equal(unnumbered, 0)
    }),
)

test('an event and the event its hook writes in the same transaction (an automation paused by the cap, audited): the cause first', async () =>
  withDb(async (db) => {
    const deps = {
      db,
      clock: { now: () => Date.now() },
      onOutboxWrite: () => undefined,
      // As queueEventRuns → admitted → pause → audit does when an event trips TASKD_AUTOMATION_RUNS_PER_MINUTE or the
      // chain depth cap: an audit.entry emitted from inside the hook of the event that caused it.
      onEvents: async (d: Deps, tx: Tx, events: { name: string }[]) => {
        if (events.some((e) => e.name === 'card.deleted'))
          await emitEvent(d, tx, { name: 'audit.entry', boardId: null, data: { caused_by: 'card.deleted' } as never, actor: { stated: { type: 'taskd' } } })
      },
    } as unknown as Deps
    await db.tx(async (tx) => {
      await emitEvent(deps, tx, { name: 'card.deleted', boardId: null, data: { id: 'c1' } as never, actor: { stated: { type: 'taskd' } } })
    })
    const rows = await dbAll<{ name: string }>(db, 'SELECT name FROM events ORDER BY commit_seq')
    // Before d532d10 the event's row was inserted before its hook ran; now after it, so the effect is numbered first.
    assert.deepEqual(
      rows.map((r) => r.name),
      ['card.deleted', 'audit.entry'],
    )
  }))

test('reads started together while a statement sent ahead fails: each gets its error', { skip }, () =>
  withDb(async (db) => {
    await assert.rejects(
      db.tx(async (tx) => {
        await sql`SELECT 1`.execute(tx.q)
        await ahead(tx.q, sql`SELECT 1 / 0`)
        const reads = await Promise.allSettled([sql`SELECT 1`.execute(tx.q), sql`SELECT 2`.execute(tx.q)].map((p) => p))
        const gathered = await together(() => Promise.allSettled([sql`SELECT 1`.execute(tx.q), sql`SELECT 2`.execute(tx.q)]))
        for (const r of [...reads, ...gathered]) {
          assert.equal(r.status, 'rejected')
          assert.match(String((r as PromiseRejectedResult).reason), /division by zero/)
        }
        throw (reads[0] as PromiseRejectedResult).reason
      }),
      /division by zero/,
    )
  }),
)

test(
  'a connection the server ends while a transaction has it (a statement sent ahead running): the transaction fails, no process-wide error, the pool serves on',
  { skip },
  () =>
    withDb(
      async (db) => {
        // pg emits 'error' on a client whose connection ends unexpectedly; pg-pool listens only while the client is idle.
        const uncaught: unknown[] = []
        const listener = (err: unknown) => void uncaught.push(err)
        const previous = process.listeners('uncaughtException')
        process.removeAllListeners('uncaughtException')
        process.on('uncaughtException', listener)
        let outcome: string
        try {
          outcome = await Promise.race([
            db
              .tx(async (tx) => {
                const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx.q)).rows[0].pid
                await write(tx, 'lost')
                await ahead(tx.q, sql`SELECT pg_sleep(0.5)`)
                await inTransaction.exit(() => sql`SELECT pg_terminate_backend(${pid})`.execute(db.q))
                await write(tx, 'lost too')
              })
              .then(
                () => 'committed',
                (err: unknown) => `failed: ${String(err)}`,
              ),
            new Promise<string>((r) => setTimeout(() => r('hung'), 5000)),
          ])
          await new Promise((r) => setTimeout(r, 200))
        } finally {
          process.removeListener('uncaughtException', listener)
          for (const l of previous) process.on('uncaughtException', l)
        }
        assert.match(outcome, /^failed/, outcome)
        const { names, unnumbered } = await log(db)
        assert.deepEqual(names, [])
        assert.equal(unnumbered, 0)
        for (let i = 0; i < 3; i++)
          await db.tx(async (tx) => {
            await sql`SELECT 1`.execute(tx.q)
            await write(tx, `after ${i}`)
          })
        assert.deepEqual((await log(db)).names, ['after 0', 'after 1', 'after 2'])
        // Without a listener on the checked-out client, this 'error' would end a taskd process (pre-existing, not new).
        assert.deepEqual(
          uncaught.map((e) => String(e)),
          [],
          'an error event of the lost connection reached the process (uncaughtException): taskd serve would exit',
        )
      },
      { dbPoolSize: 2 },
    ),
)

test('through the API: the card created past an event automation runs per minute comes before the audit.entry of the pause it causes', async () => {
  const c = await seededApp({ automationRunsPerMinute: 1 })
  try {
    const tok = c.tokens.admin.write
    const made = await c.t.req('POST', '/v1/automations', {
      token: tok,
      body: { name: 'On create', board: c.board.id, trigger: { type: 'event', events: ['card.created'] }, steps: [{ type: 'create_card', title: 'Echo' }] },
    })
    assert.equal(made.status, 201, made.text)
    const titles = ['one', 'two', 'three']
    for (const title of titles) assert.equal((await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title } })).status, 201)
    const rows = await dbAll<{ name: string; data: string }>(
      c.t.deps.db,
      "SELECT name, data FROM events WHERE name IN ('card.created', 'audit.entry') ORDER BY commit_seq",
    )
    const seen = rows
      .map((r) =>
        r.name === 'audit.entry' ? `audit:${(JSON.parse(r.data) as { action?: string }).action}` : `card:${(JSON.parse(r.data) as { title: string }).title}`,
      )
      .filter((s) => s.startsWith('audit:automation.paused') || titles.includes(s.slice(5)))
    // The second create trips the cap (its run is refused, the automation paused and audited in its transaction): its
    // card.created is the cause and came first before d532d10; now the audit.entry is written (and numbered) before it.
    assert.deepEqual(seen, ['card:one', 'card:two', 'audit:automation.paused', 'card:three'])
  } finally {
    await c.t.close()
  }
})

test(
  'a database whose default isolation is REPEATABLE READ (set by its administrator): concurrent event writers still commit, numbered densely',
  { skip },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-events-order-'))
    const database = await freshDatabase(dir)
    const first = await openDatabase(database)
    const name = new URL(database.databaseDirectUrl ?? database.databaseUrl!).pathname.slice(1)
    await sql.raw(`ALTER DATABASE ${name} SET default_transaction_isolation = 'repeatable read'`).execute(first.q)
    await first.close()
    const db = await openDatabase(database)
    try {
      const level = await db.tx(async (tx) => (await sql<{ transaction_isolation: string }>`SHOW transaction_isolation`.execute(tx.q)).rows[0])
      assert.equal(level.transaction_isolation, 'repeatable read')
      const results = await Promise.allSettled(
        Array.from({ length: 16 }, (_, i) =>
          db.tx(async (tx) => {
            await sql`SELECT 1`.execute(tx.q)
            await write(tx, `r${i}`)
            if (i % 2) await sql`SELECT pg_sleep(0.02)`.execute(tx.q)
          }),
        ),
      )
      const failed = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))
      const { names, seqs, unnumbered } = await log(db)
      assert.deepEqual(failed, [], 'every writer committed')
      assert.equal(names.length, 16)
      assert.equal(unnumbered, 0)
      assert.ok(consecutive(seqs))
    } finally {
      await db.close()
      await database.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)

test('a read waiting to go when a second statement is sent ahead, after a first that failed: it gets the first one’s error', { skip }, () =>
  withDb(async (db) => {
    let read: unknown
    await assert.rejects(
      db.tx(async (tx) => {
        await sql`SELECT 1`.execute(tx.q)
        await ahead(tx.q, sql`SELECT 1 / 0`)
        // Started together (held for the end of the turn), then a second statement ahead takes it along.
        const waiting = together(() => sql`SELECT 2`.execute(tx.q))
        await ahead(tx.q, sql`SELECT 3`)
        await waiting.catch((err: unknown) => {
          read = err
          throw err
        })
      }),
      /division by zero/,
    )
    assert.match(String(read), /division by zero/)
  }),
)
