// A run survives a SIGKILL: the server is killed while a run waits on its second step, restarted, and the run goes on
// from that step. The card its first step made is not made again.
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

test('a run survives SIGKILL and restart: it resumes at the unfinished step and never repeats a finished one', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-run-crash-'))
  const db = await freshDatabase(dir)
  // The first call never gets an answer (the server dies waiting); later ones are answered.
  const hits: { url: string; run: string }[] = []
  const receiver = http.createServer((req, res) => {
    hits.push({ url: req.url ?? '', run: String(req.headers['x-run']) })
    req.resume()
    if (hits.length > 1) res.end('ok')
  })
  let first: Served | undefined
  let second: Served | undefined
  try {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
    const env = { ...db.env, TASKD_ALLOW_PRIVATE_TARGETS: 'true', TASKD_AUTOMATION_LEASE_MS: '1500' }
    first = await serve(db.db, env)
    const token = first.token!
    const board = (await call(first, token, 'POST', '/v1/boards', { name: 'Crash' })).board
    const ep = (await call(first, token, 'POST', '/v1/webhooks/incoming', { name: 'in' })).incoming_webhook
    const automation = (
      await call(first, token, 'POST', '/v1/automations', {
        name: 'two steps',
        board: board.id,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: [
          { type: 'create_card', title: '{webhook.body.title}' },
          { type: 'http_request', method: 'POST', url: `${target}/notify?card={steps.1.card.id}`, headers: { 'X-Run': '{run.id}' }, timeout_ms: 30_000 },
        ],
      })
    ).automation
    const hookPath = new URL(ep.url).pathname
    const sent = await fetch(first.url + hookPath, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"Survivor"}' })
    assert.equal(sent.status, 202)
    await until('the second step in flight', () => hits.length === 1)
    first.child.kill('SIGKILL')
    await first.exited

    second = await serve(db.db, env)
    const runs = async () => (await call(second!, token, 'GET', `/v1/automations/${automation.id}/runs`)).items
    const [run] = await until('the run to finish after restart', async () => ((await runs())[0]?.status === 'succeeded' ? runs() : undefined))
    assert.deepEqual(
      run.steps.map((s: { status: string }) => s.status),
      ['succeeded', 'succeeded'],
    )
    const cards = await call(second, token, 'GET', `/v1/cards?board=${board.id}`)
    assert.equal(cards.totalItems, 1, 'the finished create_card step was not done again')
    assert.equal(hits.length, 2, 'the unfinished call was made again')
    assert.deepEqual(
      hits.map((h) => [h.url, h.run]),
      [
        [`/notify?card=${cards.items[0].id}`, run.id],
        [`/notify?card=${cards.items[0].id}`, run.id],
      ],
    )
  } finally {
    await first?.stop()
    await second?.stop()
    receiver.closeAllConnections()
    await new Promise((r) => receiver.close(r))
    await db.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
