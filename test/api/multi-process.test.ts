// Several `taskd serve` processes on one PostgreSQL database behave as one: card keys and idempotency keys hold across
// processes, every event is delivered although one process is SIGKILLed midway, and repeats carry the same delivery id.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { verify } from '@octokit/webhooks-methods'
import { openDatabase } from '../../src/db/open.js'
import { freshDatabase, testDialect, type TestDatabase } from '../helpers/database.js'
import { serve, type Served, callerOf } from '../helpers/serve.js'

const CARDS = 500
const ROUNDS = 20 // bulk updates of every card: CARDS × ROUNDS card.updated events
const SECRET = 'multi-process-secret'

/** Rows of a table in the test's PostgreSQL database, read directly: proves the processes use it (not a SQLite file). */
async function rowsIn(database: TestDatabase, table: 'users' | 'workspace', where: { role?: 'owner' } = {}): Promise<number> {
  const db = await openDatabase({ ...database, readWorkers: 0 })
  try {
    let query = db.q.selectFrom(table as 'users').select('id')
    if (where.role) query = query.where('role', '=', where.role)
    return (await query.execute()).length
  } finally {
    await db.close()
  }
}

/** A receiver that holds every answer until `open()`, so deliveries pile up before one process is killed. */
async function gatedReceiver() {
  const hits: { body: string; headers: http.IncomingHttpHeaders }[] = []
  const deliveries = new Set<string>()
  const held: (() => void)[] = []
  let opened = false
  let onHit = () => {}
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      hits.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers })
      deliveries.add(String(req.headers['x-webhook-delivery']))
      onHit()
      if (opened) res.end('thanks')
      else held.push(() => res.end('thanks'))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits,
    /** Distinct delivery ids received. */
    distinct: () => deliveries.size,
    open() {
      opened = true
      for (const answer of held.splice(0)) answer()
    },
    /** Resolves once cond() holds, checked at every hit (no polling). */
    until: (cond: () => boolean) =>
      new Promise<void>((resolve) => {
        if (cond()) return resolve()
        onHit = () => {
          if (cond()) {
            onHit = () => {}
            resolve()
          }
        }
      }),
    close: async () => {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}

test(
  'two processes on one PostgreSQL database: unique keys, one card per idempotency key, every event delivered after a SIGKILL',
  {
    skip: testDialect !== 'postgres' && 'several processes need PostgreSQL (npm test runs this in its PostgreSQL run)',
    timeout: 240_000,
  },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-multi-'))
    let database: TestDatabase | undefined
    const servers: Served[] = []
    let receiver: Awaited<ReturnType<typeof gatedReceiver>> | undefined
    try {
      database = await freshDatabase(dir)
      receiver = await gatedReceiver()
      const env = {
        ...database.env,
        // Every process needs the same key to read the subscription's signing secret.
        TASKD_MASTER_KEY: crypto.randomBytes(32).toString('hex'),
        TASKD_ALLOW_PRIVATE_TARGETS: 'true',
        TASKD_WEBHOOK_TIMEOUT_MS: '60000',
        TASKD_WEBHOOK_LEASE_MS: '2000',
      }
      // Both start at once on the empty database: one workspace, one owner, one setup token between them.
      const started = await Promise.allSettled([serve(database.db, env), serve(database.db, env)])
      for (const s of started) if (s.status === 'fulfilled') servers.push(s.value)
      for (const s of started) if (s.status === 'rejected') throw s.reason
      const withToken = servers.filter((s) => s.token)
      assert.equal(withToken.length, 1, 'one process made the workspace and printed the setup token')
      const [a, b] = [withToken[0], servers.find((s) => !s.token)!]
      servers.splice(0, 2, a, b)
      const token = a.token!
      assert.equal(await rowsIn(database, 'users', { role: 'owner' }), 1, 'the processes run on the PostgreSQL database, with one owner')
      assert.equal(await rowsIn(database, 'workspace'), 1, 'and one workspace')
      const call = callerOf(token)
      const t0 = performance.now()
      const phases: string[] = []
      const phase = (name: string) => phases.push(`${name} ${Math.round(performance.now() - t0)} ms`)
      const board = (await call(a, 'POST', '/v1/boards', { name: 'Multi', key_prefix: 'MP' })).json.board

      // Card keys: creates spread over both processes, 16 at a time.
      const created: { id: string; key: string }[] = []
      let next = 0
      await Promise.all(
        Array.from({ length: 16 }, async (_, worker) => {
          while (next < CARDS) {
            const i = next++
            const r = await call(servers[(i + worker) % 2], 'POST', '/v1/cards', { board: board.id, title: `card ${i}` })
            assert.equal(r.status, 201, JSON.stringify(r.json))
            created.push({ id: r.json.card.id, key: r.json.card.key })
          }
        }),
      )
      assert.deepEqual(created.map((c) => c.key).sort(), Array.from({ length: CARDS }, (_, i) => `MP-${i + 1}`).sort(), 'keys MP-1..MP-500, none twice')

      phase('500 creates')
      // 2 × 50 creates with one idempotency key, at once, on both processes: one card, and every answer names it.
      const same = await Promise.all(
        Array.from({ length: 100 }, (_, i) => call(servers[i % 2], 'POST', '/v1/cards', { board: board.id, title: 'once', idempotency_key: 'only-once' })),
      )
      for (const r of same) assert.ok(r.status === 201 || r.status === 200, `${r.status} ${JSON.stringify(r.json)}`)
      assert.equal(same.filter((r) => r.status === 201).length, 1, 'exactly one create made the card')
      assert.equal(new Set(same.map((r) => r.json.card.id)).size, 1, 'every answer is the same card')
      const onces = await call(b, 'GET', `/v1/cards?board=${board.id}&filter=${encodeURIComponent('title = "once"')}`)
      assert.equal(onces.json.totalItems, 1)

      phase('idempotent creates')
      // 10,000 events, written by both processes; the receiver holds its answers, so deliveries pile up.
      const hook = await call(a, 'POST', '/v1/webhooks', { name: 'all', url: receiver.url, events: ['card.updated'], boards: [board.id], secret: SECRET })
      assert.equal(hook.status, 201, JSON.stringify(hook.json))
      const ids = created.map((c) => c.id)
      // Each round: half the cards through each process, at the same time.
      const halves = [ids.slice(0, CARDS / 2), ids.slice(CARDS / 2)]
      for (let round = 0; round < ROUNDS; round++) {
        const replies = await Promise.all(
          halves.map((cards, i) => call(servers[(round + i) % 2], 'POST', '/v1/actions/bulk-update-cards', { cards, set: { title: `round ${round}` } })),
        )
        for (const r of replies) assert.deepEqual(r.json, { updated: CARDS / 2, failed: [] }, `${r.status}`)
      }
      phase('bulk updates')
      const expected = new Set(ids.flatMap((id) => Array.from({ length: ROUNDS }, (_, round) => `${id}/round ${round}`)))
      const seen = new Map<string, Set<string>>() // event (card/title) → delivery ids
      const record = (h: { body: string; headers: http.IncomingHttpHeaders }) => {
        const p = JSON.parse(h.body)
        const key = `${p.data.id}/${p.data.title}`
        ;(seen.get(key) ?? seen.set(key, new Set()).get(key)!).add(h.headers['x-webhook-delivery'] as string)
      }

      // Open the gate; once 3,000 distinct events have arrived, kill one process without warning.
      receiver.open()
      const distinct = receiver.distinct
      await receiver.until(() => distinct() >= 3000)
      a.child.kill('SIGKILL')
      await a.exited
      phase('3,000 delivered, SIGKILL')
      assert.ok(distinct() < expected.size, 'killed midway')

      // The survivor delivers the rest, including what the dead process had claimed (once its lease runs out).
      await receiver.until(() => distinct() >= expected.size)
      phase('all delivered')
      for (const h of receiver.hits) {
        record(h)
        assert.ok(await verify(SECRET, h.body, h.headers['x-service-signature'] as string), 'signature checks out')
      }
      assert.deepEqual(new Set(seen.keys()), expected, 'every event arrived')
      for (const [event, deliveries] of seen) assert.equal(deliveries.size, 1, `${event}: repeats carry the same delivery id`)
      const repeats = receiver.hits.length - expected.size
      console.log(`multi-process: ${expected.size} events, ${receiver.hits.length} requests (${repeats} repeats, same ids); ${phases.join(', ')}`)

      b.child.kill('SIGTERM')
      assert.equal(await b.exited, 0, 'SIGTERM shuts down cleanly')
    } catch (err) {
      // What the processes logged (an internal error's cause) helps more than the status alone.
      for (const s of servers) console.error(s.output().slice(-4000))
      throw err
    } finally {
      for (const s of servers) await s.stop()
      await receiver?.close()
      await database?.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)

test(
  'TASKD_RATE_LIMIT=on with two processes: one budget of 600 requests a minute per token across both',
  {
    skip: testDialect !== 'postgres' && 'several processes need PostgreSQL (npm test runs this in its PostgreSQL run)',
  },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-multi-'))
    let database: TestDatabase | undefined
    const servers: Served[] = []
    try {
      database = await freshDatabase(dir)
      const env = { ...database.env, TASKD_RATE_LIMIT: 'on' }
      servers.push(await serve(database.db, env))
      servers.push(await serve(database.db, env))
      const token = servers[0].token!
      assert.equal(await rowsIn(database, 'users', { role: 'owner' }), 1, 'the processes run on the PostgreSQL database')
      const me = (s: Served) => fetch(`${s.url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => (await r.arrayBuffer(), r))
      // 300 on each process, 10 at a time: all within the one budget.
      let sent = 0
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (sent < 600) {
            const i = sent++
            assert.equal((await me(servers[i % 2])).status, 200, `request ${i}`)
          }
        }),
      )
      for (const s of servers) {
        const limited = await me(s)
        assert.equal(limited.status, 429, 'the 601st request, on either process, is refused')
        assert.ok(Number(limited.headers.get('retry-after')) >= 1)
      }
    } finally {
      for (const s of servers) await s.stop()
      await database?.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)
