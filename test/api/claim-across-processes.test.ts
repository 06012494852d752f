// A desktop app long-polling the claim route of one `taskd serve` process is seen by the kickoff dispatcher of another
// process on the same database: the kickoff goes to that app (local_access), not to the next power (service_ai).
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { openDatabase } from '../../src/db/open.js'
import { fakeAi } from '../helpers/agents.js'
import { freshDatabase, testDialect, type TestDatabase } from '../helpers/database.js'
import { serve, type Served, callerOf } from '../helpers/serve.js'
import { until } from '../helpers/until.js'

/** Claim long polls the database holds now (read directly, as a dispatcher of any process reads them). */
async function waitsIn(database: TestDatabase): Promise<number> {
  const db = await openDatabase({ ...database, readWorkers: 0 })
  try {
    return (await db.q.selectFrom('agent_claim_waits').select('id').execute()).length
  } finally {
    await db.close()
  }
}

test(
  'a claimer waiting in process A gets the kickoff process B dispatches, ahead of service_ai',
  {
    // One SQLite file has one `taskd serve` (its pid file refuses a second), so only PostgreSQL has several processes.
    skip: testDialect !== 'postgres' && 'several serve processes on one database need PostgreSQL (one SQLite file has one server)',
    timeout: 120_000,
  },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-claim-'))
    let database: TestDatabase | undefined
    const servers: Served[] = []
    const ai = await fakeAi({ status: 200, reply: 'The AI did it instead' })
    const claiming = new AbortController()
    try {
      database = await freshDatabase(dir)
      const env = { ...database.env, TASKD_MASTER_KEY: crypto.randomBytes(32).toString('hex'), TASKD_AI_URL: ai.url, TASKD_AI_MODEL: 'test-model' }
      const a = await serve(database.db, env)
      servers.push(a)
      const b = await serve(database.db, env)
      servers.push(b)
      const token = a.token!
      const call = callerOf(token)
      const me = (await call(a, 'GET', '/v1/users/me')).json.user
      const board = (await call(a, 'POST', '/v1/boards', { name: 'Desk', key_prefix: 'DSK' })).json.board
      const made = await call(a, 'POST', '/v1/users', { kind: 'agent', name: 'Desk agent', agent: { owner: me.id, powers: ['local_access', 'service_ai'] } })
      assert.equal(made.status, 201, JSON.stringify(made.json))
      const agent = made.json.user
      assert.equal((await call(a, 'POST', `/v1/boards/${board.id}/members`, { user: agent.id })).status, 201)
      const card = (await call(a, 'POST', '/v1/cards', { board: board.id, title: 'For the desk' })).json.card

      // The owner's app waits on A ...
      const claim = call(a, 'POST', '/v1/agent-kickoffs/claim', { wait_seconds: 30 }, claiming.signal)
      claim.catch(() => {}) // aborted in finally when the test fails first
      await until('the claim wait on A to be recorded', async () => (await waitsIn(database!)) > 0)
      // ... and the kickoff is made on B, whose dispatcher attempts it at once.
      const k = await call(b, 'POST', '/v1/agent-kickoffs', { card: card.id, agent: agent.id })
      assert.equal(k.status, 201, JSON.stringify(k.json))
      const delivered = await until('the kickoff to be delivered', async () => {
        const got = (await call(b, 'GET', `/v1/agent-kickoffs/${k.json.kickoff.id}`)).json.kickoff
        return got.status === 'delivered' && got
      })
      assert.equal(delivered.via, 'local_access', `delivered through ${delivered.via}, not to the app waiting on A`)
      assert.equal(ai.requests.length, 0, 'no AI turn')
      const claimed = await claim
      assert.equal(claimed.status, 200)
      assert.equal(claimed.json.kickoff.id, k.json.kickoff.id)
      // The wait is over: nothing is left in the database for another dispatcher to count on.
      await until('the claim wait to be gone', async () => (await waitsIn(database!)) === 0)
    } finally {
      claiming.abort()
      await Promise.all(servers.map((s) => s.stop()))
      await ai.close()
      await database?.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)
