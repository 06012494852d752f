// Operations through `taskd serve` as a child: the JSON request log on stderr (every line parses, no token, secret,
// incoming path or body in it), and SIGTERM: a request and a delivery in flight are finished and recorded, the process
// exits within its bound, and after a restart nothing is missing.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { freshDatabase } from '../helpers/database.js'
import { serve, type Served } from '../helpers/serve.js'
import { startReceiver, type Receiver } from '../webhooks/fixtures.js'
import { until } from '../helpers/until.js'

async function call(s: Served, token: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(s.url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = await res.json()
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

test('TASKD_LOG_FORMAT=json: one JSON line per request with route pattern, status, duration, request id and actor; no token, secret, incoming path or body', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-log-'))
  const db = await freshDatabase(dir)
  let s: Served | undefined
  try {
    s = await serve(db.db, { ...db.env, TASKD_LOG_FORMAT: 'json' })
    const token = s.token!
    const me = (await call(s, token, 'GET', '/v1/users/me')).user
    const ep = (await call(s, token, 'POST', '/v1/webhooks/incoming', { name: 'in' })).incoming_webhook
    const hookPath = new URL(ep.url).pathname
    const secretPart = hookPath.split('/').pop()!
    const body = JSON.stringify({ note: 'body-secret-5b1f' })
    assert.equal((await fetch(s.url + hookPath, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status, 202)
    const guessed = `tt_${'Q'.repeat(43)}`
    assert.equal((await fetch(`${s.url}/v1/users/me`, { headers: { authorization: `Bearer ${guessed}` } })).status, 401)
    const traced = await fetch(`${s.url}/v1/cards?filter=${encodeURIComponent('title ~ "query-secret-77"')}`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'trace-77' },
    })
    assert.equal(traced.status, 200)
    await s.stop()
    assert.equal(await s.exited, 0)

    const lines = s
      .errors()
      .split('\n')
      .filter((l) => l !== '')
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    for (const e of entries) {
      assert.equal(typeof e.time, 'string')
      assert.ok(['info', 'error'].includes(e.level as string))
    }
    const requests = entries.filter((e) => e.msg === 'request')
    assert.equal(requests.length, 5)
    for (const r of requests) {
      assert.deepEqual(Object.keys(r), ['time', 'level', 'msg', 'method', 'route', 'status', 'duration_ms', 'request_id', 'actor'])
      assert.equal(typeof r.duration_ms, 'number')
    }
    assert.deepEqual(
      requests.map((r) => [r.method, r.route, r.status, r.actor]),
      [
        ['GET', '/v1/users/me', 200, me.id],
        ['POST', '/v1/webhooks/incoming', 201, me.id],
        ['POST', '/v1/hooks/{path}', 202, null],
        ['GET', '/v1/users/me', 401, null],
        ['GET', '/v1/cards', 200, me.id],
      ],
    )
    assert.equal(requests[4].request_id, 'trace-77')
    const log = s.errors()
    for (const secret of [token, guessed, secretPart, 'body-secret-5b1f', 'query-secret-77'])
      assert.ok(!log.includes(secret), `the log never holds ${secret.slice(0, 12)}…`)
  } finally {
    await s?.stop()
    await db.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('SIGTERM: a request and a webhook attempt in flight are finished and recorded, the process exits within its bound, nothing is missing after restart', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-term-'))
  const db = await freshDatabase(dir)
  const env = { ...db.env, TASKD_ALLOW_PRIVATE_TARGETS: 'true', TASKD_WEBHOOK_TIMEOUT_MS: '5000' }
  let receiver: Receiver | undefined
  let first: Served | undefined
  let second: Served | undefined
  try {
    receiver = await startReceiver()
    first = await serve(db.db, env)
    const token = first.token!
    const board = (await call(first, token, 'POST', '/v1/boards', { name: 'Term' })).board
    const sub = (await call(first, token, 'POST', '/v1/webhooks', { name: 'slow', url: `${receiver.url}/slow/1500`, events: ['card.created'], boards: [] }))
      .webhook
    const ep = (await call(first, token, 'POST', '/v1/webhooks/incoming', { name: 'in' })).incoming_webhook
    const hook = new URL(ep.url)

    // A request whose body is half sent, and a delivery the receiver has not answered yet.
    const body = Buffer.from(JSON.stringify({ text: 'x'.repeat(2000) }))
    let pending: http.ClientRequest | undefined
    const answer = new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: Number(new URL(first!.url).port),
          path: hook.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', reject)
      req.write(body.subarray(0, 1000))
      pending = req
    })
    const card = (await call(first, token, 'POST', '/v1/cards', { board: board.id, title: 'in flight' })).card
    await until('the delivery in flight', () => receiver!.hits.length === 1 && !receiver!.hits[0].answered)

    first.child.kill('SIGTERM')
    // Shutdown has begun once new connections are refused; then the rest of the body arrives.
    await until('the listener closed', () =>
      fetch(`${first!.url}/healthz`).then(
        () => false,
        () => true,
      ),
    )
    pending!.end(body.subarray(1000))
    assert.equal(await answer, 202, 'the request in flight is answered')
    // A clean exit: the shutdown ended its work instead of being cut off.
    assert.equal(await first.exited, 0)
    assert.ok(receiver.hits[0].answered, 'the attempt in flight was let finish')

    second = await serve(db.db, env)
    const logs = (await call(second, token, 'GET', `/v1/webhooks/${sub.id}/logs`)).items as { outcome: string; attempt: number }[]
    assert.deepEqual(
      logs.map((l) => [l.outcome, l.attempt]),
      [['delivered', 1]],
      'recorded before exit, so not sent again',
    )
    assert.equal(receiver.hits[0].json.data.id, card.id)
    const requests = (await call(second, token, 'GET', `/v1/webhooks/incoming/${ep.id}/logs`)).items as { outcome: string }[]
    assert.deepEqual(
      requests.map((r) => r.outcome),
      ['accepted'],
    )
  } finally {
    await first?.stop()
    await second?.stop()
    await receiver?.close()
    await db.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
