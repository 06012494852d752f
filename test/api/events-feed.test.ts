// The change feed (GET /v1/events) through HTTP, on one fixture: `after=now` and the delivery shape (byte for byte a
// webhook's body but for the id), visibility (the webhook rule: another board's member sees none of its events, a
// member no workspace-wide ones, a member who left none of the board's), selection and paging, bad input, the long
// poll woken by a commit (no sleep: the wait is longer than the test may take), the waiter caps, a follower that
// reads while many writers commit, the MCP tool, and, last (they move the clock and prune the log), cursor expiry
// and retention. On PostgreSQL also: a list move's events written once, numbered with its COMMIT; a transaction that
// wrote an event first but commits last is not skipped; a long poll on one serve process is woken by a commit through
// another.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { Actor } from '../../src/access/roles.js'
import { emitEvent } from '../../src/events/emit.js'
import { messageObservers } from '../../src/db/postgres.js'
import { decodeCursor, encodeCursor } from '../../src/resources/change-feed/cursor.js'
import { pruneEventLog } from '../../src/resources/change-feed/service.js'
import { freshDatabase, testDialect, type TestDatabase } from '../helpers/database.js'
import { dbAll, dbGet } from '../helpers/db.js'
import { seededApp } from '../helpers/app.js'
import { assertErrorShape } from '../helpers/scenarios.js'
import { callerOf, serve, type Served } from '../helpers/serve.js'
import { until } from '../helpers/until.js'
import { createCard, createSub, webhookApp } from '../webhooks/fixtures.js'

const DAY_MS = 86_400_000

async function fixture() {
  // Caps small enough to reach: one waiting request per token, two in all.
  const c = await webhookApp({ feedWaitsPerToken: 1, feedWaits: 2 })
  try {
    const { t, tokens } = c
    // The outsider is a member of another board only.
    const other = (await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })).body.board
    return { ...c, other }
  } catch (err) {
    await c.close()
    throw err
  }
}
const ready = fixture()
after(async () => (await ready).close())
type C = Awaited<typeof ready>

type Feed = { items: { id: string; event: string; timestamp: string; data: any }[]; next: string }

/** GET /v1/events with a query; asserts 200 unless another status is expected. */
async function feed(c: C, token: string, query: string, signal?: AbortSignal): Promise<Feed> {
  const r = await get(c, token, query, signal)
  assert.equal(r.status, 200, r.text)
  return r.body
}
const get = (c: C, token: string, query: string, signal?: AbortSignal) =>
  signal
    ? fetch(`${c.t.url}/v1/events?${query}`, { headers: { authorization: `Bearer ${token}` }, signal }).then(async (res) => {
        const text = await res.text()
        return { status: res.status, body: JSON.parse(text), text, headers: res.headers }
      })
    : c.t.req('GET', `/v1/events?${query}`, { token })
const head = async (c: C, token: string) => (await feed(c, token, 'after=now')).next
const names = (f: Feed) => f.items.map((i) => i.event)
const waiting = (c: C) => c.t.deps.feedWaiters.keys().length

test('after=now answers at once with no items and the head; what commits next comes after it, as a webhook delivers it', async () => {
  const c = await ready
  const { tokens } = c
  const start = await feed(c, tokens.member.read, 'after=now')
  assert.deepEqual(start.items, [])
  assert.ok(decodeCursor(start.next), 'the cursor is one the feed hands out')
  const sub = await createSub(c, tokens.member.write, { url: `${c.receiver.url}/ok`, events: ['card.*'], boards: [c.board.id] })
  const card = await createCard(c, tokens.member.write, 'Follow me')
  await c.scheduler.runOnce()
  const [hit] = c.receiver.hits.filter((h) => h.json?.data?.id === card.id)
  assert.ok(hit, 'the subscription got the delivery')
  const got = await feed(c, tokens.member.read, `after=${start.next}`)
  assert.deepEqual(names(got), ['card.created'])
  const [item] = got.items
  // The webhook body's id is its delivery id, the feed's the event's; everything else is the same bytes.
  assert.equal(JSON.stringify({ ...item, id: hit.json.id }), hit.body)
  const [row] = await dbAll<{ event_id: string }>(c.t.deps.db, 'SELECT event_id FROM outbox WHERE id = ?', hit.json.id)
  assert.equal(row.event_id, item.id)
  assert.deepEqual((await feed(c, tokens.member.read, `after=${got.next}`)).items, [], 'nothing after it yet')
  assert.equal((await c.t.req('DELETE', `/v1/webhooks/${sub.webhook.id}`, { token: tokens.member.write })).status, 204)
})

test('visibility is a webhook delivery’s: another board’s member sees none of its events, members no workspace-wide ones, admins all', async () => {
  const c = await ready
  const { t, tokens } = c
  const start = await head(c, tokens.admin.read)
  const theirs = await createCard(c, tokens.outsider.write, 'Theirs', c.other.id)
  const ours = await createCard(c, tokens.member.write, 'Ours')
  const folder = (await t.req('POST', '/v1/folders', { token: tokens.owner.write, body: { name: 'Plans' } })).body.folder
  const ids = (f: Feed) => f.items.map((i) => `${i.event} ${i.data.id}`)
  assert.deepEqual(ids(await feed(c, tokens.member.read, `after=${start}`)), [`card.created ${ours.id}`], 'a member: the board’s events only')
  assert.deepEqual(ids(await feed(c, tokens.outsider.read, `after=${start}`)), [`card.created ${theirs.id}`], 'another board’s member: none of it')
  assert.deepEqual(
    ids(await feed(c, tokens.admin.read, `after=${start}`)),
    [`card.created ${theirs.id}`, `card.created ${ours.id}`, `folder.created ${folder.id}`],
    'an admin (not on the other board): every event, the workspace’s too, in commit order',
  )
  assert.deepEqual(ids(await feed(c, tokens.admin.read, `after=${start}&boards=${c.other.id}`)), [`card.created ${theirs.id}`], 'boards selects')
  assert.deepEqual(
    (await feed(c, tokens.member.read, `after=${start}&boards=${c.other.id},${c.board.id}`)).items.length,
    1,
    'naming a board one does not receive shows nothing of it',
  )
  // Judged at each read, as each delivery attempt is: a member who left no longer gets the board's events.
  const leave = await t.req('DELETE', `/v1/boards/${c.board.id}/members/${c.member.id}`, { token: tokens.owner.write })
  assert.equal(leave.status, 204, leave.text)
  try {
    assert.deepEqual((await feed(c, tokens.member.read, `after=${start}`)).items, [])
  } finally {
    const back = await t.req('POST', `/v1/boards/${c.board.id}/members`, { token: tokens.owner.write, body: { user: c.member.id } })
    assert.equal(back.status, 201, back.text)
  }
})

test('events selects like a webhook subscription; limit pages, next reads on; without after the feed starts at the oldest event', async () => {
  const c = await ready
  const { t, tokens } = c
  const start = await head(c, tokens.member.read)
  const first = await createCard(c, tokens.member.write, 'First')
  assert.equal((await t.req('POST', '/v1/comments', { token: tokens.member.write, body: { card: first.id, body: 'Noted' } })).status, 201)
  const second = await createCard(c, tokens.member.write, 'Second')
  assert.deepEqual(names(await feed(c, tokens.member.read, `after=${start}&events=comment.added`)), ['comment.added'])
  const page1 = await feed(c, tokens.member.read, `after=${start}&events=card.*&limit=1`)
  assert.deepEqual(
    page1.items.map((i) => i.data.id),
    [first.id],
  )
  const page2 = await feed(c, tokens.member.read, `after=${page1.next}&events=card.*,comment.added&limit=1`)
  assert.deepEqual(names(page2), ['comment.added'])
  const page3 = await feed(c, tokens.member.read, `after=${page2.next}&events=${encodeURIComponent('card.*')}&limit=1`)
  assert.deepEqual(
    page3.items.map((i) => i.data.id),
    [second.id],
  )
  assert.deepEqual((await feed(c, tokens.member.read, `after=${page3.next}&limit=500`)).items, [])
  const oldest = await dbGet<{ id: string }>(t.deps.db, 'SELECT id FROM events ORDER BY commit_seq LIMIT 1')
  assert.equal((await feed(c, tokens.owner.read, 'limit=1')).items[0].id, oldest!.id)
})

const BAD: { name: string; query: string; status: number; field?: string; code?: string; message?: RegExp; token?: false }[] = [
  { name: 'a cursor that is not one', query: 'after=garbage!', status: 400, field: 'after' },
  {
    name: 'a cursor of the right alphabet but not one the feed made',
    query: `after=${Buffer.from('1.2.3').toString('base64url')}`,
    status: 400,
    field: 'after',
  },
  { name: 'a cursor not written the way the feed writes it', query: `after=${Buffer.from('01.2').toString('base64url')}`, status: 400, field: 'after' },
  { name: 'limit 0', query: 'limit=0', status: 400, field: 'limit' },
  { name: 'limit 501', query: 'limit=501', status: 400, field: 'limit' },
  { name: 'limit not a number', query: 'limit=many', status: 400, field: 'limit' },
  { name: 'wait 31', query: 'wait=31', status: 400, field: 'wait' },
  { name: 'wait below 0', query: 'wait=-1', status: 400, field: 'wait' },
  { name: 'an unknown event', query: 'events=card.created,card.bogus', status: 400, field: 'events', message: /card\.bogus/ },
  { name: 'an unknown family', query: 'events=nope.*', status: 400, field: 'events', message: /nope\.\*/ },
  { name: 'an empty selection', query: 'events=,', status: 400, field: 'events' },
  { name: 'an empty board selection', query: 'boards=', status: 400, field: 'boards' },
  { name: 'a parameter it does not take', query: 'filter=x', status: 400, field: 'filter' },
  { name: 'no token', query: 'after=now', status: 401, token: false },
]
for (const row of BAD) {
  test(`bad input answers ${row.status}: ${row.name}`, async () => {
    const c = await ready
    const r = await c.t.req('GET', `/v1/events?${row.query}`, { token: row.token === false ? undefined : c.tokens.member.read })
    assert.equal(r.status, row.status, r.text)
    assertErrorShape(r.body)
    if (row.field)
      assert.ok(
        (r.body.error.details ?? []).some((d: { path: string }) => d.path === row.field),
        `details name ${row.field}: ${r.text}`,
      )
    if (row.message) assert.match(r.text, row.message)
  })
}

test('a waiting request answers as soon as an event for it commits, and not for events it does not receive', { timeout: 20_000 }, async () => {
  const c = await ready
  const { tokens } = c
  const start = await head(c, tokens.member.read)
  // 30 s: far past this test's timeout, so only the commit can have answered it.
  const answer = feed(c, tokens.member.read, `after=${start}&wait=30&events=card.created`)
  await until('the request to wait', () => waiting(c) === 1)
  await createCard(c, tokens.outsider.write, 'Not for the member', c.other.id)
  const card = await createCard(c, tokens.member.write, 'Wake up')
  const got = await answer
  assert.deepEqual(
    got.items.map((i) => `${i.event} ${i.data.id}`),
    [`card.created ${card.id}`],
  )
  assert.equal(waiting(c), 0)
  assert.deepEqual((await feed(c, tokens.member.read, `after=${got.next}`)).items, [], 'the cursor is past it')
})

test('a wait that ends with nothing for the reader moves its cursor past what others received meanwhile', async () => {
  const c = await ready
  const { t, tokens } = c
  const start = await head(c, tokens.outsider.read)
  const answer = feed(c, tokens.outsider.read, `after=${start}&wait=2`)
  await until('the request to wait', () => waiting(c) === 1)
  const card = await createCard(c, tokens.member.write, 'Not the outsider’s')
  const got = await answer
  assert.deepEqual(got.items, [])
  const [row] = await dbAll<{ commit_seq: number }>(t.deps.db, "SELECT commit_seq FROM events WHERE name = 'card.created' ORDER BY commit_seq DESC LIMIT 1")
  assert.equal(decodeCursor(got.next)!.seq, Number(row.commit_seq), `the cursor is past ${card.key}’s event`)
})

test('waiting requests are capped per token and in all: 429 with Retry-After past a cap, and the places come back', { timeout: 20_000 }, async () => {
  const c = await ready
  const { tokens } = c
  const start = await head(c, tokens.owner.read)
  const first = feed(c, tokens.member.read, `after=${start}&wait=30`)
  await until('the first request to wait', () => waiting(c) === 1)
  const sameToken = await c.t.req('GET', `/v1/events?after=${start}&wait=30`, { token: tokens.member.read })
  assert.equal(sameToken.status, 429, sameToken.text)
  assert.equal(sameToken.body.error.code, 'rate_limited')
  assert.equal(sameToken.headers.get('retry-after'), '1')
  assert.match(sameToken.body.error.message, /token/)
  // Without wait there is no cap: the same token reads at once.
  assert.equal((await c.t.req('GET', `/v1/events?after=${start}`, { token: tokens.member.read })).status, 200)
  const second = feed(c, tokens.owner.read, `after=${start}&wait=30`)
  await until('the second request to wait', () => waiting(c) === 2)
  const overall = await c.t.req('GET', `/v1/events?after=${start}&wait=30`, { token: tokens.admin.read })
  assert.equal(overall.status, 429, overall.text)
  assert.match(overall.body.error.message, /server/)
  const card = await createCard(c, tokens.member.write, 'For both')
  for (const got of await Promise.all([first, second]))
    assert.deepEqual(
      got.items.map((i) => i.data.id),
      [card.id],
    )
  // Both places are back: two tokens wait again (answered at once here, since there is something to read).
  for (const token of [tokens.member.read, tokens.admin.read]) assert.equal((await feed(c, token, `after=${start}&wait=30`)).items.length, 1)
})

test('a client that goes away stops waiting and gives its place back', { timeout: 20_000 }, async () => {
  const c = await ready
  const gone = new AbortController()
  const answer = get(c, c.tokens.member.read, 'after=now&wait=30', gone.signal)
  answer.catch(() => {})
  await until('the request to wait', () => waiting(c) === 1)
  gone.abort()
  await until('the wait to end', () => waiting(c) === 0)
  await until('the place to come back', async () => (await get(c, c.tokens.member.read, 'wait=1&limit=1')).status === 200)
})

test('a follower reading while many writers commit gets every event exactly once, in commit order', { timeout: 60_000 }, async () => {
  const c = await ready
  const { t, tokens } = c
  const start = await head(c, tokens.admin.read)
  const got: string[] = []
  let cursor = start
  let writing = true
  let wanted = Infinity
  const follower = (async () => {
    while (writing || got.length < wanted) {
      const page = await feed(c, tokens.admin.read, `after=${cursor}&wait=1&limit=7`)
      got.push(...page.items.map((i) => i.id))
      cursor = page.next
    }
  })()
  try {
    const writes = Array.from({ length: 12 }, (_, w) =>
      (async () => {
        for (let i = 0; i < 4; i++) {
          const mine = w % 2 === 0
          const card = await createCard(c, mine ? tokens.member.write : tokens.outsider.write, `w${w} c${i}`, mine ? c.board.id : c.other.id)
          const r = await t.req('PATCH', `/v1/cards/${card.id}`, { token: mine ? tokens.member.write : tokens.outsider.write, body: { priority: 2 } })
          assert.equal(r.status, 200, r.text)
        }
      })(),
    )
    await Promise.all(writes)
  } finally {
    const committed = await dbAll<{ id: string }>(t.deps.db, 'SELECT id FROM events WHERE commit_seq > ? ORDER BY commit_seq', decodeCursor(start)!.seq)
    wanted = committed.length
    writing = false
    await follower
    assert.equal(new Set(got).size, got.length, 'no event twice')
    assert.deepEqual(
      got,
      committed.map((e) => e.id),
      'every event, in commit order',
    )
  }
  assert.ok(wanted >= 96, `${wanted} events: each card’s created and updated`)
})

test('MCP recent_changes: the events after a cursor and the next one, as the REST feed answers', async () => {
  const c = await ready
  const { tokens } = c
  const client = new Client({ name: 'taskd-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${c.t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tokens.member.read}` } } }),
  )
  try {
    const now = (await client.callTool({ name: 'recent_changes', arguments: { after: 'now' } })) as { structuredContent: Feed }
    assert.deepEqual(now.structuredContent.items, [])
    const card = await createCard(c, tokens.member.write, 'Told to the assistant')
    const r = (await client.callTool({ name: 'recent_changes', arguments: { after: now.structuredContent.next, events: ['card.*'], limit: 10 } })) as {
      structuredContent: Feed
    }
    assert.deepEqual(
      r.structuredContent.items.map((i) => `${i.event} ${i.data.id}`),
      [`card.created ${card.id}`],
    )
    assert.deepEqual(r.structuredContent, await feed(c, tokens.member.read, `after=${now.structuredContent.next}&events=card.*&limit=10`))
    const bad = (await client.callTool({ name: 'recent_changes', arguments: { events: ['card.bogus'] } })) as { isError?: boolean; content: { text: string }[] }
    assert.equal(bad.isError, true)
    assert.match(bad.content[0].text, /card\.bogus/)
  } finally {
    await client.close()
  }
})

test(
  'PostgreSQL: a list move’s events are written once, with its COMMIT: numbered by their insert after the lock, in the order written',
  { skip: testDialect !== 'postgres' && 'SQLite numbers each event as it inserts it' },
  async () => {
    // Nothing prepared, so that each message's statements can be read.
    const c = await seededApp({ dbPrepare: 'off' })
    const messages: string[] = []
    const see = (text: string) => messages.push(text)
    try {
      const token = c.tokens.owner.write
      const [from, to] = c.lists
      for (let i = 0; i < 5; i++) {
        const r = await c.t.req('POST', '/v1/cards', { token, body: { title: `moved ${i}`, board: c.board.id, list: from.id } })
        assert.equal(r.status, 201, r.text)
      }
      const last = Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT MAX(commit_seq) AS n FROM events'))!.n)
      messageObservers.add(see)
      const r = await c.t.req('DELETE', `/v1/lists/${from.id}?move_to=${to.id}`, { token })
      messageObservers.delete(see)
      assert.equal(r.status, 204, r.text)
      const inserts = messages.filter((m) => m.includes('INSERT INTO events'))
      assert.ok(inserts.length > 0, 'the move wrote events')
      for (const m of inserts) assert.match(m, /SELECT pg_advisory_xact_lock\(\d+\);\nINSERT INTO events \([^)]*, commit_seq\)[^]*;\nCOMMIT$/)
      assert.ok(!messages.some((m) => m.includes('UPDATE events')), 'no event row written a second time')
      const rows = await dbAll<{ name: string; commit_seq: number }>(c.t.deps.db, 'SELECT name, commit_seq FROM events WHERE commit_seq > ? ORDER BY seq', last)
      assert.equal(rows.filter((e) => e.name === 'card.moved').length, 5)
      assert.equal(rows.at(-1)?.name, 'list.deleted')
      assert.deepEqual(
        rows.map((e) => Number(e.commit_seq)),
        rows.map((_, i) => last + i + 1),
        'numbered one after another, in the order written',
      )
    } finally {
      messageObservers.delete(see)
      await c.t.close()
    }
  },
)

test(
  'PostgreSQL: a transaction that wrote an event first but commits last is read after what committed before it, not skipped, with the event it wrote at its end',
  { skip: testDialect !== 'postgres' && 'one SQLite writer commits in the order it writes' },
  async () => {
    const c = await ready
    const { t, tokens } = c
    const start = await head(c, tokens.owner.read)
    const owner = (await t.deps.db.q.selectFrom('users').selectAll().where('id', '=', c.owner.id).executeTakeFirstOrThrow())!
    const actor: Actor = { user: owner, tokenId: 'test', permission: 'write' }
    const tag = (id: string) => ({
      name: 'tag.created' as const,
      boardId: c.board.id,
      data: { id, name: id, color: null, board: { id: c.board.id, name: 'Launch' } },
      actor,
    })
    let wrote!: () => void
    let release!: () => void
    const written = new Promise<void>((resolve) => (wrote = resolve))
    const gate = new Promise<void>((resolve) => (release = resolve))
    // The first event's row goes out with the read after it (unnumbered until the commit); the second goes with the
    // COMMIT. The card created meanwhile commits its events in their own COMMIT's message.
    const slow = t.deps.db.tx(async (tx) => {
      const first = await emitEvent(t.deps, tx, tag('slowtagfirst0000'))
      await tx.q.selectFrom('users').select('id').limit(1).execute()
      wrote()
      await gate
      return [first, await emitEvent(t.deps, tx, tag('slowtaglast00000'))]
    })
    try {
      await written
      const fast = await createCard(c, tokens.member.write, 'Commits first')
      const before = await feed(c, tokens.owner.read, `after=${start}`)
      assert.deepEqual(
        before.items.map((i) => i.data.id),
        [fast.id],
      )
      release()
      const [first, last] = await slow
      const seqs = await dbAll<{ id: string; seq: number }>(t.deps.db, 'SELECT id, seq FROM events WHERE commit_seq > ? ORDER BY seq', decodeCursor(start)!.seq)
      assert.equal(seqs[0].id, first, 'the slow transaction wrote its first event before the card’s (a smaller seq)')
      const later = await feed(c, tokens.owner.read, `after=${before.next}`)
      assert.deepEqual(
        later.items.map((i) => i.id),
        [first, last],
        'read after the cursor that was past the faster commit, in the order written',
      )
      const numbers = await dbAll<{ commit_seq: number }>(
        t.deps.db,
        'SELECT commit_seq FROM events WHERE commit_seq > ? ORDER BY commit_seq',
        decodeCursor(start)!.seq,
      )
      assert.deepEqual(
        numbers.map((n) => Number(n.commit_seq)),
        [1, 2, 3].map((i) => decodeCursor(start)!.seq + i),
        'numbered one after another',
      )
      assert.equal(Number((await dbGet<{ n: number }>(t.deps.db, 'SELECT COUNT(*) AS n FROM events WHERE commit_seq IS NULL'))!.n), 0, 'every event numbered')
    } finally {
      release()
      await slow.catch(() => {})
    }
  },
)

test(
  'PostgreSQL: a request waiting on one serve process answers when a commit through another process brings its event',
  { skip: testDialect !== 'postgres' && 'several serve processes on one database need PostgreSQL (one SQLite file has one server)', timeout: 120_000 },
  async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-feed-'))
    let database: TestDatabase | undefined
    const servers: Served[] = []
    const gone = new AbortController()
    try {
      database = await freshDatabase(dir)
      // Polls every ten minutes: within the test's timeouts only a notification can have woken B.
      const env = { ...database.env, TASKD_MASTER_KEY: crypto.randomBytes(32).toString('hex'), TASKD_POLL_MS: '600000', TASKD_LOG_LEVEL: 'error' }
      const a = await serve(database.db, { ...env, TASKD_WORKERS: 'none' })
      servers.push(a)
      const b = await serve(database.db, env)
      servers.push(b)
      const call = callerOf(a.token!)
      const board = (await call(a, 'POST', '/v1/boards', { name: 'Wake', key_prefix: 'WK' })).json.board
      await t.test('the long poll on B is answered by the card made through A', { timeout: 25_000 }, async () => {
        const start = (await call(b, 'GET', '/v1/events?after=now')).json.next
        const answer = call(b, 'GET', `/v1/events?after=${start}&wait=30`, undefined, gone.signal)
        answer.catch(() => {})
        await until('the request to wait on B', async () => / 1$/m.test(await metricLine(b, 'taskd_feed_waiting')))
        const card = await call(a, 'POST', '/v1/cards', { board: board.id, title: 'Made through A' })
        assert.equal(card.status, 201, JSON.stringify(card.json))
        const got = await answer
        assert.equal(got.status, 200, JSON.stringify(got.json))
        assert.deepEqual(
          got.json.items.map((i: { event: string; data: { id: string } }) => `${i.event} ${i.data.id}`),
          [`card.created ${card.json.card.id}`],
        )
      })
    } finally {
      gone.abort()
      await Promise.all(servers.map((s) => s.stop()))
      await database?.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)

/** The line of one metric in a served process's /metrics (loopback, no token needed). */
async function metricLine(s: Served, name: string): Promise<string> {
  const text = await (await fetch(`${s.url}/metrics`)).text()
  return text.split('\n').find((l) => l.startsWith(`${name} `)) ?? ''
}

// Last: these move the clock and prune the log.
test('a cursor older than the retention answers 410 cursor_expired (the injected clock); a young one reads on', async () => {
  const c = await ready
  const { t, tokens } = c
  const cursor = await head(c, tokens.member.read)
  t.clock.advance(29 * DAY_MS)
  assert.equal((await get(c, tokens.member.read, `after=${cursor}`)).status, 200)
  t.clock.advance(2 * DAY_MS)
  const r = await get(c, tokens.member.read, `after=${cursor}`)
  assert.equal(r.status, 410, r.text)
  assertErrorShape(r.body)
  assert.equal(r.body.error.code, 'cursor_expired')
})

test('housekeeping prunes events past the retention (never the newest); a cursor before what is kept answers 410', async () => {
  const c = await ready
  const { t, tokens } = c
  const kept = await dbGet<{ n: number }>(t.deps.db, 'SELECT COUNT(*) AS n FROM events')
  assert.ok(Number(kept!.n) > 2)
  t.clock.advance(31 * DAY_MS)
  assert.equal(await pruneEventLog(t.deps), Number(kept!.n) - 1, 'all but the newest, which the next commit_seq counts on from')
  const [newest] = await dbAll<{ id: string; commit_seq: number }>(t.deps.db, 'SELECT id, commit_seq FROM events')
  const card = await createCard(c, tokens.member.write, 'After the prune')
  const all = await feed(c, tokens.owner.read, '')
  assert.deepEqual(
    all.items.map((i) => i.id),
    [newest.id, all.items[1].id],
    'without after: from the oldest event kept',
  )
  assert.equal(all.items[1].data.id, card.id)
  assert.equal(Number((await dbGet<{ s: number }>(t.deps.db, 'SELECT MAX(commit_seq) AS s FROM events'))!.s), Number(newest.commit_seq) + 1)
  // A young cursor from before the pruned events: what came after it is gone.
  const before = encodeCursor({ seq: Number(newest.commit_seq) - 2, at: t.clock.now() })
  const r = await get(c, tokens.member.read, `after=${before}`)
  assert.equal(r.status, 410, r.text)
  assert.equal(r.body.error.code, 'cursor_expired')
  // Right before the oldest kept is still whole.
  assert.equal((await get(c, tokens.member.read, `after=${encodeCursor({ seq: Number(newest.commit_seq) - 1, at: t.clock.now() })}`)).status, 200)
})
