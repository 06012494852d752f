// A commit in one `taskd serve` process wakes the workers and claim long polls of another on the same PostgreSQL
// database (LISTEN/NOTIFY). Process A runs no background workers (TASKD_WORKERS=none) and B runs them all, and both
// poll only every ten minutes (TASKD_POLL_MS): within the test's timeouts only a notification from A's commit can
// have woken B, for each of a webhook delivery, an automation run and a claim long poll.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { openDatabase } from '../../src/db/open.js'
import { freshDatabase, testDialect, type TestDatabase } from '../helpers/database.js'
import { serve, type Served, callerOf } from '../helpers/serve.js'
import { until } from '../helpers/until.js'

/** Ten minutes: far past the test's timeout, so no poll can explain a wake-up. */
const POLL_MS = '600000'

/** A local receiver whose `next()` resolves with the next request's body (no polling). */
async function receiver() {
  const bodies: string[] = []
  let waiting: ((body: string) => void) | undefined
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      res.end('thanks')
      if (waiting) {
        const w = waiting
        waiting = undefined
        w(body)
      } else bodies.push(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    next: () => new Promise<string>((resolve) => (bodies.length > 0 ? resolve(bodies.shift()!) : (waiting = resolve))),
    close: async () => {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}

test(
  'two processes on one PostgreSQL database: a commit in one wakes the outbox, the automation runner and a claim long poll of the other',
  {
    skip: testDialect !== 'postgres' && 'several serve processes on one database need PostgreSQL (one SQLite file has one server)',
    timeout: 120_000,
  },
  async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-wake-'))
    let database: TestDatabase | undefined
    const servers: Served[] = []
    const hook = await receiver()
    const claiming = new AbortController()
    try {
      database = await freshDatabase(dir)
      const env = {
        ...database.env,
        TASKD_MASTER_KEY: crypto.randomBytes(32).toString('hex'),
        TASKD_ALLOW_PRIVATE_TARGETS: 'true',
        TASKD_POLL_MS: POLL_MS,
        TASKD_LOG_LEVEL: 'error',
      }
      const a = await serve(database.db, { ...env, TASKD_WORKERS: 'none' })
      servers.push(a)
      const b = await serve(database.db, env)
      servers.push(b)
      const token = a.token!
      const call = callerOf(token)
      const ready = (await call(a, 'GET', '/readyz')).json
      assert.deepEqual(
        [ready.checks.scheduler, ready.checks.runner, ready.checks.dispatcher, ready.status],
        ['off', 'off', 'off', 'ready'],
        'A runs no background worker, and is ready all the same',
      )
      const board = (await call(a, 'POST', '/v1/boards', { name: 'Wake', key_prefix: 'WK' })).json.board

      await t.test('(a) an event committed through A is delivered by the outbox of B', async () => {
        const made = await call(a, 'POST', '/v1/webhooks', { name: 'cards', url: hook.url, events: ['card.created'], boards: [board.id] })
        assert.equal(made.status, 201, JSON.stringify(made.json))
        const delivered = hook.next()
        const card = await call(a, 'POST', '/v1/cards', { board: board.id, title: 'delivered by B' })
        assert.equal(card.status, 201, JSON.stringify(card.json))
        const body = JSON.parse(await delivered)
        assert.equal(body.event, 'card.created')
        assert.equal(body.data.id, card.json.card.id)
        assert.equal((await call(a, 'DELETE', `/v1/webhooks/${made.json.webhook.id}`)).status, 204)
      })

      await t.test('(b) an automation run queued through A is run by the runner of B', async () => {
        const auto = await call(a, 'POST', '/v1/automations', {
          name: 'mark',
          board: board.id,
          trigger: { type: 'event', events: ['card.created'], filter: 'title ~ "automate"' },
          steps: [{ type: 'update_card', card: '{event.data.id}', description: 'ran' }],
        })
        assert.equal(auto.status, 201, JSON.stringify(auto.json))
        const card = (await call(a, 'POST', '/v1/cards', { board: board.id, title: 'automate me' })).json.card
        const run = await until('the automation run to succeed', async () => {
          const [r] = (await call(a, 'GET', `/v1/automations/${auto.json.automation.id}/runs`)).json.items
          return r?.status === 'succeeded' && r
        })
        assert.equal(run.steps[0].output.card.id, card.id)
        assert.equal((await call(a, 'GET', `/v1/cards/${card.id}`)).json.card.description, 'ran')
      })

      // The claim waits 30 s at most and looks once more at its end; this subtest times out before then, so a claim
      // answered within it was woken by the kickoff's commit.
      await t.test('(c) a claim long poll waiting on B returns as soon as a kickoff is made through A', { timeout: 25_000 }, async () => {
        const me = (await call(a, 'GET', '/v1/users/me')).json.user
        const made = await call(a, 'POST', '/v1/users', { kind: 'agent', name: 'Desk agent', agent: { owner: me.id, powers: ['local_access'] } })
        assert.equal(made.status, 201, JSON.stringify(made.json))
        const agent = made.json.user
        assert.equal((await call(a, 'POST', `/v1/boards/${board.id}/members`, { user: agent.id })).status, 201)
        const card = (await call(a, 'POST', '/v1/cards', { board: board.id, title: 'for the desk' })).json.card
        const claim = call(b, 'POST', '/v1/agent-kickoffs/claim', { wait_seconds: 30 }, claiming.signal)
        claim.catch(() => {}) // aborted in finally when the test fails first
        await until('the claim wait on B to be recorded', () => waitsRecorded(database!))
        const k = await call(a, 'POST', '/v1/agent-kickoffs', { card: card.id, agent: agent.id })
        assert.equal(k.status, 201, JSON.stringify(k.json))
        const claimed = await claim
        assert.equal(claimed.status, 200, JSON.stringify(claimed.json))
        assert.equal(claimed.json.kickoff.id, k.json.kickoff.id)
      })
    } finally {
      claiming.abort()
      await Promise.all(servers.map((s) => s.stop()))
      await hook.close()
      await database?.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)

/** Whether a claim long poll is recorded in the database (as the dispatchers of every process read it). */
async function waitsRecorded(database: TestDatabase): Promise<boolean> {
  const db = await openDatabase({ ...database, readWorkers: 0 })
  try {
    return (await db.q.selectFrom('agent_claim_waits').select('id').execute()).length > 0
  } finally {
    await db.close()
  }
}
