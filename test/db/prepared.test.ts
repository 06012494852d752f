// PostgreSQL's prepared statements (src/db/postgres.ts): each pool connection prepares a statement the second time it
// sends it and then only executes it; a message that fails leaves no name missing or taken twice for the next ones;
// a statement PostgreSQL cannot prepare goes with its values written in; off behind a pooler and when turned off.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { sql } from 'kysely'
import { later, together } from '../../src/db/database.js'
import { openDatabase } from '../../src/db/open.js'
import { messageObservers } from '../../src/db/postgres.js'
import { seededApp } from '../helpers/app.js'
import { freshDatabase, testDialect } from '../helpers/database.js'

const pooled = Boolean(process.env.TASKD_TEST_POOLER_URL)
const skip = testDialect !== 'postgres' ? 'runs in the PostgreSQL run of npm test' : false
const skipDirect = skip || (pooled && 'prepared statements are off behind the pooler')

type Opened = Awaited<ReturnType<typeof openDatabase>>

/** fn on a new database opened with these options, closed and dropped afterwards whatever happens. */
async function withDb(opts: Partial<Parameters<typeof openDatabase>[0]>, fn: (db: Opened) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-pg-'))
  const database = await freshDatabase(dir)
  try {
    const db = await openDatabase({ ...database, log: () => {}, ...opts })
    try {
      await fn(db)
    } finally {
      await db.close()
    }
  } finally {
    await database.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Texts of the messages sent while fn runs. */
async function watching<T>(fn: () => Promise<T>): Promise<{ result: T; messages: string[] }> {
  const messages: string[] = []
  const see = (text: string) => messages.push(text)
  messageObservers.add(see)
  try {
    return { result: await fn(), messages }
  } finally {
    messageObservers.delete(see)
  }
}

test('PostgreSQL: a request repeated on one connection executes the statements its earlier runs prepared', { skip: skipDirect }, async () => {
  const c = await seededApp({ dbPoolSize: 1 })
  try {
    const create = (title: string) =>
      c.t.req('POST', '/v1/cards', { token: c.tokens.owner.write, body: { title, board: c.board.id, priority: 3, assignees: [c.member.id] } })
    // One card a page: the views read the same statements each time (`IN (...)` of one id).
    const list = () =>
      c.t.req('GET', `/v1/cards?per_page=1&filter=${encodeURIComponent(`board="${c.board.id}" && priority>=1`)}`, { token: c.tokens.owner.read })
    // The first run sends statements with their values written in (those the app's start sent before are prepared
    // already); the second prepares those it sends again; the third only executes.
    const runs = []
    for (const title of ['one', 'two', 'three']) {
      const run = await watching(async () => [await create(title), await list()])
      for (const r of run.result) assert.ok(r.status === 200 || r.status === 201, r.text)
      runs.push(run.messages)
    }
    const [first, second, third] = runs as [string[], string[], string[]]
    const show = (messages: string[]) => messages.map((m) => m.slice(0, 160)).join('\n')
    assert.ok(
      first.some((m) => m.includes("'")),
      `the first run writes values in:\n${show(first)}`,
    )
    assert.ok(
      second.some((m) => /PREPARE taskd_[0-9a-f]+_\d+ AS /.test(m)),
      `the second run prepares:\n${show(second)}`,
    )
    assert.deepEqual(
      third.filter((m) => m.includes('PREPARE ')),
      [],
      'the third run prepares nothing: every statement is prepared already',
    )
    assert.ok(third.filter((m) => /EXECUTE taskd_[0-9a-f]+_\d+/.test(m)).length >= 3, third.join('\n---\n'))
    // The one connection's session holds them: by PREPARE (messages of several statements) and by pg (one sent alone).
    const { rows } = await sql<{ from_sql: boolean; n: number }>`
      SELECT from_sql, count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'taskd_%' GROUP BY from_sql ORDER BY from_sql`.execute(c.t.deps.db.q)
    assert.deepEqual(
      rows.map((r) => r.from_sql),
      [false, true],
    )
    assert.ok(rows.every((r) => r.n > 0 && r.n < 200))
  } finally {
    await c.t.close()
  }
})

test(
  'PostgreSQL: a message that fails after a first PREPARE leaves the connection working: the same and other statements run again',
  { skip: skipDirect },
  async () => {
    await withDb({ dbPoolSize: 2 }, async (db) => {
      await sql`CREATE TABLE probe (id TEXT PRIMARY KEY, n INTEGER NOT NULL)`.execute(db.q)
      await sql`INSERT INTO probe VALUES ('taken', 0)`.execute(db.q)
      const insert = (id: string, n: number) => sql`INSERT INTO probe (id, n) VALUES (${id}, ${n})`
      const count = (least: number) => sql<{ n: number }>`SELECT count(*)::int AS n FROM probe WHERE n >= ${least}`
      // One message: BEGIN, the insert (prepared first, then failing: its PREPARE ran), the count (its PREPARE never ran).
      const write = (id: string) =>
        db.tx(async ({ q }) => {
          await later(q, insert(id, 1).compile(q))
          return (await count(0).execute(q)).rows[0]?.n
        })
      // A unique violation the transaction runs again for, every time: it ends failing.
      await assert.rejects(write('taken'), (err: unknown) => (err as { code?: string }).code === '23505')
      // Both connections of the pool, at once, each several times: no missing and no doubled name.
      for (let round = 0; round < 3; round++) {
        const ids = [`a${round}`, `b${round}`]
        const counts = await Promise.all(ids.map((id) => write(id)))
        assert.ok(counts.every((n) => typeof n === 'number' && n >= 2))
        await Promise.all([
          db.read(db.q.selectFrom('users').select('id').where('email', '=', `nobody${round}@example.com`)),
          db.tx(async ({ q }) => together(() => Promise.all([count(1).execute(q), count(round).execute(q)]))),
        ])
      }
      // And again the failure, then the same statements fine, and still prepared (not given up as unpreparable after
      // a PREPARE of a name that existed, or an EXECUTE of one that did not).
      await assert.rejects(write('a0'), (err: unknown) => (err as { code?: string }).code === '23505')
      const { result, messages } = await watching(async () => [await write('c'), await write('d')])
      assert.deepEqual(result, [8, 9])
      for (const id of ['c', 'd'])
        assert.ok(
          messages.some((m) => new RegExp(`EXECUTE taskd_[0-9a-f]+_\\d+\\('${id}', '1'\\)`).test(m)),
          messages.join('\n---\n'),
        )
    })
  },
)

test(
  'PostgreSQL: prepared statements gone missing (as behind a transaction pooler) are turned off with one warning, and the work still runs',
  { skip: skipDirect },
  async () => {
    const warnings: string[] = []
    await withDb({ dbPoolSize: 1, log: (msg: string) => warnings.push(msg) }, async (db) => {
      await sql`CREATE TABLE probe (id TEXT PRIMARY KEY, n INTEGER NOT NULL)`.execute(db.q)
      const write = (id: string) =>
        db.tx(async ({ q }) => {
          await later(q, sql`INSERT INTO probe (id, n) VALUES (${id}, ${1})`.compile(q))
          return (await sql<{ n: number }>`SELECT count(*)::int AS n FROM probe WHERE n >= ${0}`.execute(q)).rows[0]?.n
        })
      const read = (id: string) => db.read(db.q.selectFrom('users').select('id').where('email', '=', `${id}@example.com`))
      const alone = (id: string) => sql<{ n: number }>`SELECT count(*)::int AS n FROM probe WHERE id <> ${id}`.execute(db.q)
      for (const id of ['a', 'b', 'c']) {
        await write(id)
        await read(id)
        await alone(id)
      }
      // The one connection's session loses its prepared statements, as another server session behind a pooler has none.
      await sql`DEALLOCATE ALL`.execute(db.q)
      const { result, messages } = await watching(async () => [await write('d'), (await read('d')).length, (await alone('d')).rows[0]?.n, await write('e')])
      assert.deepEqual(result, [4, 0, 3, 5])
      assert.equal(warnings.filter((w) => /prepared statements are off/.test(w)).length, 1, warnings.join('\n'))
      // After the miss, nothing is prepared or executed by name.
      const after = messages.slice(messages.findIndex((m) => /EXECUTE taskd_/.test(m)) + 1)
      assert.ok(after.length >= 3, messages.join('\n---\n'))
      assert.deepEqual(
        after.filter((m) => /PREPARE |EXECUTE /.test(m)),
        [],
      )
    })
  },
)

test('PostgreSQL: a statement PostgreSQL cannot prepare (a parameter of no inferable type) runs with its value written in', { skip: skipDirect }, async () => {
  await withDb({ dbPoolSize: 1 }, async (db) => {
    // pg_typeof takes any type: PREPARE cannot type $1 (42P18), a quoted literal is of type unknown.
    const typeOf = (v: string) => sql<{ t: string }>`SELECT pg_typeof(${v})::text AS t`
    // A read (one message with its settings), twice.
    assert.deepEqual(await db.read(db.q.selectNoFrom(sql<string>`pg_typeof(${'a'})::text`.as('t'))), [{ t: 'unknown' }])
    assert.deepEqual(await db.read(db.q.selectNoFrom(sql<string>`pg_typeof(${'b'})::text`.as('t'))), [{ t: 'unknown' }])
    // In a transaction's message of several statements, the first time and after; and alone (pg's own protocol).
    for (const v of ['c', 'd']) {
      const [typed, one] = await db.tx(async ({ q }) =>
        together(() => Promise.all([typeOf(v).execute(q), sql<{ x: number }>`SELECT ${1}::int AS x`.execute(q)])),
      )
      assert.deepEqual(typed.rows, [{ t: 'unknown' }])
      assert.deepEqual(one.rows, [{ x: 1 }])
    }
    await assert.rejects(typeOf('e').execute(db.q), /could not determine data type/)
  })
})

test('PostgreSQL: with TASKD_DB_PREPARE=off (and behind a pooler by default) nothing is prepared', { skip }, async () => {
  // Through the pooler the default (auto) is off already; directly, the setting turns it off.
  await withDb({ dbPoolSize: 1, ...(pooled ? {} : { dbPrepare: 'off' as const }) }, async (db) => {
    const { messages } = await watching(async () => {
      for (let i = 0; i < 3; i++) {
        await db.tx(async ({ q }) => {
          await later(
            q,
            q
              .insertInto('workspace')
              .values({ id: `w${i}`, name: 'x', created_at: '1' })
              .compile(),
          )
          await together(() => Promise.all([q.selectFrom('workspace').selectAll().execute(), q.selectFrom('users').selectAll().execute()]))
        })
        await db.read(db.q.selectFrom('workspace').select('id').where('id', '=', `w${i}`))
        await db.q.selectFrom('workspace').select('id').where('id', '=', `w${i}`).execute()
      }
    })
    assert.ok(messages.length >= 9)
    assert.deepEqual(
      messages.filter((m) => /PREPARE|EXECUTE/.test(m)),
      [],
    )
    // Nothing named either (pg's named statements); through the pooler this asks whichever server connection it lands on.
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`.execute(db.q)
    assert.equal(rows[0]?.n, 0)
  })
})
