// Queued kickoffs survive SIGKILL: the server is killed once while a kickoff waits for its retry and once in the middle
// of an attempt; after each restart delivery goes on with the same kickoff id, and once delivered it is never sent again.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { freshDatabase } from '../helpers/database.js'
import { serve, type Served } from '../helpers/serve.js'
import { until } from '../helpers/until.js'

async function call(s: Served, token: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(s.url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = res.status === 204 ? undefined : await res.json()
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

test('a queued kickoff survives SIGKILL while it waits and while it is attempted: delivered once, always with the same id', { timeout: 90_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-kickoff-crash-'))
  const db = await freshDatabase(dir)
  // The runner answers 500 first, never answers the second call (the server dies waiting), and 200 after that.
  const hits: { kickoff: string; body: any }[] = []
  const runner = http.createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      hits.push({ kickoff: String(req.headers['x-kickoff-id']), body: JSON.parse(body) })
      if (hits.length === 1) res.writeHead(500).end('busy')
      else if (hits.length > 2) res.end('ok')
    })
  })
  const servers: Served[] = []
  try {
    await new Promise<void>((r) => runner.listen(0, '127.0.0.1', r))
    const wake = `http://127.0.0.1:${(runner.address() as AddressInfo).port}/wake`
    // A 2 s retry and a 1.5 s lease keep the test short; the schedule itself is tested on the fake clock.
    const env = {
      ...db.env,
      TASKD_ALLOW_PRIVATE_TARGETS: 'true',
      TASKD_AGENT_RETRY_DELAYS: '2',
      TASKD_AGENT_LEASE_MS: '1500',
      TASKD_WEBHOOK_TIMEOUT_MS: '30000',
    }
    const start = async () => {
      const s = await serve(db.db, env)
      servers.push(s)
      return s
    }
    const first = await start()
    const token = first.token!
    const board = (await call(first, token, 'POST', '/v1/boards', { name: 'Crash' })).board
    const owner = (await call(first, token, 'GET', '/v1/users/me')).user
    const agent = (
      await call(first, token, 'POST', '/v1/users', { kind: 'agent', name: 'Robo', agent: { owner: owner.id, wake_url: wake, powers: ['auto_start'] } })
    ).user
    await call(first, token, 'POST', `/v1/boards/${board.id}/members`, { user: agent.id })
    const card = (await call(first, token, 'POST', '/v1/cards', { board: board.id, title: 'Survive' })).card
    const kickoff = (await call(first, token, 'POST', '/v1/agent-kickoffs', { card: card.id, agent: agent.id })).kickoff
    const status = (s: Served) => async () => (await call(s, token, 'GET', `/v1/agent-kickoffs/${kickoff.id}`)).kickoff

    // Killed while queued for its retry.
    const queued = await until('the first attempt to be recorded', async () => {
      const k = await status(first)()
      return k.status === 'queued' ? k : undefined
    })
    assert.equal(queued.attempts, 1)
    first.child.kill('SIGKILL')
    await first.exited

    // Killed in the middle of the retry.
    const second = await start()
    await until('the retry in flight', () => hits.length === 2)
    second.child.kill('SIGKILL')
    await second.exited

    // Its lease runs out and the third process delivers it.
    const third = await start()
    const delivered = await until('delivery after restart', async () => {
      const k = await status(third)()
      return k.status === 'delivered' ? k : undefined
    })
    assert.equal(delivered.via, 'auto_start')
    assert.equal(hits.length, 3, 'sent once per attempt: the answered 500, the one cut short, the delivered one')
    assert.deepEqual(
      hits.map((h) => [h.kickoff, h.body.kickoff.id, h.body.run]),
      hits.map(() => [kickoff.id, kickoff.id, kickoff.run]),
      'every attempt carries the same kickoff id',
    )
    const runs = await call(third, token, 'GET', `/v1/agent-runs?card=${card.id}`)
    assert.equal(runs.totalItems, 1, 'one run, made with the kickoff')
    assert.equal(runs.items[0].id, kickoff.run)
  } finally {
    for (const s of servers) await s.stop()
    runner.closeAllConnections()
    await new Promise((r) => runner.close(r))
    await db.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
