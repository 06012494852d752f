// A card create's number and place taken late (src/db/late.ts): what PostgreSQL's connection does when the answer to
// the COMMIT is lost, when the board changes while the create waits for its row, when the list's end leaves no room,
// and what an event automation's run is handed.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { sql } from 'kysely'
import { closedPortSubscription, seededApp } from '../helpers/app.js'
import { testDialect } from '../helpers/database.js'
import { dbAll, dbGet, dbRun } from '../helpers/db.js'
import { until } from '../helpers/until.js'

const onPg = { skip: testDialect !== 'postgres' && 'PostgreSQL only' }

/**
 * Runs fn with pg's Client.query wrapped (the pools fn makes bind it when a client connects): the answer to the first
 * message `lose` picks is replaced by a connection error, after the server ran the message. Put back afterwards.
 */
async function losingAnAnswer(lose: (text: string) => boolean, fn: () => Promise<void>): Promise<void> {
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown
  let armed = true
  ;(pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const r = original.apply(this, args)
    if (armed && r instanceof Promise && lose(typeof args[0] === 'string' ? args[0] : '')) {
      armed = false
      return r.then(() => {
        throw new Error('Connection terminated unexpectedly')
      })
    }
    return r
  }
  try {
    await fn()
  } finally {
    ;(pg.Client.prototype as { query: unknown }).query = original
  }
}

test('a lost answer to the COMMIT of a create is not run again: one card, and an error the client may retry with its idempotency key', onPg, async () => {
  const lost = (text: string) => /next_key = next_key \+ 1|EXECUTE/.test(text) && /COMMIT$/.test(text) && text.includes('lost-answer')
  await losingAnAnswer(lost, async () => {
    const c = await seededApp()
    try {
      const token = c.tokens.member.write
      // Warm up (the first create prepares nothing yet).
      assert.equal((await c.t.req('POST', '/v1/cards', { token, body: { board: c.board.id, title: 'warm' } })).status, 201)
      const res = await c.t.req('POST', '/v1/cards', { token, body: { board: c.board.id, title: 'lost-answer' } })
      const rows = await dbAll<{ key: string }>(c.t.deps.db, "SELECT key FROM cards WHERE title = 'lost-answer' ORDER BY key_num")
      assert.equal(rows.length, 1, `one request, ${rows.length} cards (${rows.map((r) => r.key).join(', ')}); status ${res.status}`)
      assert.equal(res.status, 500, res.text)
    } finally {
      await c.t.close()
    }
  })
})

test("an event automation's run started by a create is handed the card's key and place, never a stand-in", onPg, async () => {
  const c = await seededApp()
  try {
    const token = c.tokens.admin.write
    const a = await c.t.req('POST', '/v1/automations', {
      token,
      body: {
        name: 'a',
        board: c.board.id,
        trigger: { type: 'event', events: ['card.created'], filter: 'title ~ "auto"' },
        steps: [{ type: 'update_card', card: '{event.data.id}', description: 'key {event.data.key} at {event.data.position}' }],
      },
    })
    assert.equal(a.status, 201, a.text)
    const res = await c.t.req('POST', '/v1/cards', { token, body: { board: c.board.id, title: 'auto one' } })
    assert.equal(res.status, 201, res.text)
    const runs = await dbAll<{ context: string }>(c.t.deps.db, 'SELECT context FROM automation_runs')
    assert.equal(runs.length, 1)
    const ctx = JSON.parse(runs[0].context) as { event: { data: { key: string; position: number } } }
    assert.equal(ctx.event.data.key, res.body.card.key)
    assert.equal(ctx.event.data.position, res.body.card.position)
    assert.doesNotMatch(runs[0].context, /\u2060/)
  } finally {
    await c.t.close()
  }
})

test('a list whose last card is near 1e308: the create takes its place at once (the others renumbered) and answers what was stored', onPg, async () => {
  const c = await seededApp()
  try {
    const token = c.tokens.member.write
    const first = await c.t.req('POST', '/v1/cards', { token, body: { board: c.board.id, title: 'big', list: c.lists[0].id } })
    assert.equal(first.status, 201, first.text)
    await dbRun(c.t.deps.db, 'UPDATE cards SET position = 1.7976931348623157e308 WHERE id = ?', first.body.card.id)
    const res = await c.t.req('POST', '/v1/cards', { token, body: { board: c.board.id, title: 'after big', list: c.lists[0].id } })
    assert.equal(res.status, 201, res.text)
    const stored = await dbGet<{ position: number; key: string }>(c.t.deps.db, 'SELECT position, key FROM cards WHERE id = ?', res.body.card.id)
    assert.equal(res.body.card.position, stored!.position)
    assert.equal(res.body.card.key, stored!.key)
    const big = await dbGet<{ position: number }>(c.t.deps.db, 'SELECT position FROM cards WHERE id = ?', first.body.card.id)
    assert.ok(big!.position < stored!.position, `${big!.position} < ${stored!.position}`)
  } finally {
    await c.t.close()
  }
})

/**
 * A create made while another transaction holds the board's row: it waits for the row (seen in pg_stat_activity),
 * then that transaction runs `change` and commits. The create's answer.
 */
async function createWhileBoardHeld(c: Awaited<ReturnType<typeof seededApp>>, title: string, change: (trx: any) => Promise<void>) {
  let release!: () => void
  const released = new Promise<void>((r) => (release = r))
  let locked!: () => void
  const isLocked = new Promise<void>((r) => (locked = r))
  const done = c.t.deps.db.q.transaction().execute(async (trx) => {
    await sql`SELECT id FROM boards WHERE id = ${c.board.id} FOR UPDATE`.execute(trx)
    locked()
    await released
    await change(trx)
  })
  try {
    await isLocked
    const pending = c.t.req('POST', '/v1/cards', { token: c.tokens.owner.write, body: { board: c.board.id, title } })
    await until('a create waiting on the board lock', async () => {
      const r = await dbGet<{ n: number }>(
        c.t.deps.db,
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%next_key = next_key + 1%' AND datname = current_database()",
      )
      return (r?.n ?? 0) > 0
    })
    release()
    await done
    return await pending
  } finally {
    release()
    await done.catch(() => undefined)
  }
}

test('the board deleted while a create waits for its row: 404', onPg, async () => {
  const c = await seededApp()
  try {
    const res = await createWhileBoardHeld(c, 'orphan', async (trx) => {
      await sql`DELETE FROM boards WHERE id = ${c.board.id}`.execute(trx)
    })
    assert.equal(res.status, 404, res.text)
  } finally {
    await c.t.close()
  }
})

test("the prefix renamed while a create waits for the board's row: the answer, the row, the event and the delivery carry the new key", onPg, async () => {
  const c = await seededApp({ allowPrivateTargets: 'true' })
  try {
    await closedPortSubscription(c, ['card.created'])
    const res = await createWhileBoardHeld(c, 'renamed', async (trx) => {
      await sql`UPDATE boards SET key_prefix = 'ZZZ' WHERE id = ${c.board.id}`.execute(trx)
    })
    assert.equal(res.status, 201, res.text)
    assert.match(res.body.card.key, /^ZZZ-\d+$/)
    const stored = await dbGet<{ key: string }>(c.t.deps.db, 'SELECT key FROM cards WHERE id = ?', res.body.card.id)
    assert.equal(stored!.key, res.body.card.key)
    const ev = await dbGet<{ data: string }>(c.t.deps.db, "SELECT data FROM events WHERE name = 'card.created'")
    assert.equal(JSON.parse(ev!.data).key, res.body.card.key)
    const out = await dbGet<{ body: string }>(c.t.deps.db, 'SELECT body FROM outbox')
    assert.equal(JSON.parse(out!.body).data.key, res.body.card.key)
  } finally {
    await c.t.close()
  }
})
