// Operations through HTTP: /healthz, /readyz (with failing checks), /metrics parsed by an independent Prometheus text
// parser, its token and loopback rule, X-Request-Id, and the general rate limit by address with the RateLimit-* headers.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import parsePrometheusTextFormat, { type PrometheusSample } from 'parse-prometheus-text-format'
import { loadConfig } from '../../src/config.js'
import { startServer, type Running } from '../../src/server.js'
import { FakeClock, seededApp } from '../helpers/app.js'
import { freshDatabase, type TestDatabase } from '../helpers/database.js'
import { dbGet, dbRun } from '../helpers/db.js'
import { startReceiver, type Receiver } from '../webhooks/fixtures.js'
import { until } from '../helpers/until.js'

/** taskd as `serve` runs it (the outbox scheduler, the automation runner and the kickoff dispatcher started), in-process. */
async function started(db: TestDatabase, clock: FakeClock, settings: Record<string, unknown> = {}) {
  const config = loadConfig(
    {
      db: db.db,
      databaseUrl: db.databaseUrl,
      masterKey: process.env.TASKD_MASTER_KEY,
      port: 0,
      logLevel: 'silent',
      allowPrivateTargets: 'true',
      ...settings,
    },
    {},
  )
  let token = ''
  const running = await startServer(config, { clock, print: (line) => (token = /(tt_\w+)/.exec(line)?.[1] ?? token) })
  return { running, token, url: `http://127.0.0.1:${running.port}` }
}

async function withServer(settings: Record<string, unknown>, fn: (s: Awaited<ReturnType<typeof started>> & { clock: FakeClock }) => Promise<void>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-ops-'))
  const db = await freshDatabase(dir)
  const clock = new FakeClock()
  let running: Running | undefined
  try {
    const s = await started(db, clock, settings)
    running = s.running
    await fn({ ...s, clock })
  } finally {
    await running?.close()
    await db.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

async function call(url: string, token: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = await res.json()
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

/** The text of the last scrape. */
let lastText = ''

/** The families of a scrape, by name, as parse-prometheus-text-format reads them. */
async function scrape(url: string, headers: Record<string, string> = {}): Promise<Map<string, { type: string; metrics: PrometheusSample[] }>> {
  const res = await fetch(`${url}/metrics`, { headers })
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
  lastText = await res.text()
  const families = parsePrometheusTextFormat(lastText)
  return new Map(families.map((f) => [f.name, f]))
}

/** The value of the sample whose labels include `labels` (0 when there is none). */
function valueOf(families: Awaited<ReturnType<typeof scrape>>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name)
  assert.ok(family, `${name} is exposed`)
  const sample = family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  return Number(sample?.value ?? sample?.count ?? 0)
}

test('/healthz and /readyz answer without a token; /readyz is 503 naming a stopped worker or a database at another schema version', async () => {
  await withServer({}, async ({ url, running }) => {
    const health = await fetch(`${url}/healthz`)
    assert.equal(health.status, 200)
    assert.deepEqual(await health.json(), { status: 'ok' })
    const ready = await fetch(`${url}/readyz`)
    assert.equal(ready.status, 200)
    assert.deepEqual(await ready.json(), {
      status: 'ready',
      checks: { database: 'ok', migrations: 'ok', scheduler: 'ok', runner: 'ok', dispatcher: 'ok' },
    })

    const db = running.deps.db
    const stored = db.dialect === 'postgres' ? 'SELECT version FROM schema_version' : 'SELECT user_version AS version FROM pragma_user_version()'
    const version = Number((await dbGet<{ version: number }>(db, stored))!.version)
    await dbRun(db, db.dialect === 'postgres' ? 'UPDATE schema_version SET version = 1' : 'PRAGMA user_version = 1')
    try {
      const old = await fetch(`${url}/readyz`)
      assert.equal(old.status, 503)
      const body = await old.json()
      assert.equal(body.status, 'not_ready')
      assert.equal(body.checks.database, 'ok')
      assert.equal(body.checks.migrations, `the database is at schema version 1; this taskd needs ${version}`)
      assert.equal(body.error.code, 'not_ready')
      assert.match(body.error.message, /migrations: the database is at schema version 1/)
    } finally {
      await dbRun(db, db.dialect === 'postgres' ? `UPDATE schema_version SET version = ${version}` : `PRAGMA user_version = ${version}`)
    }
    assert.equal((await fetch(`${url}/readyz`)).status, 200)

    await running.runner.stop()
    const stopped = await fetch(`${url}/readyz`)
    assert.equal(stopped.status, 503)
    const body = await stopped.json()
    assert.deepEqual(body.checks, { database: 'ok', migrations: 'ok', scheduler: 'ok', runner: 'not running', dispatcher: 'ok' })
    assert.equal(body.error.message, 'Not ready: runner: not running.')
  })
})

test('/metrics in the Prometheus text format: requests by route pattern and status, latency, deliveries, the outbox backlog and its age, runs, kickoffs, database size', async () => {
  let receiver: Receiver | undefined
  try {
    receiver = await startReceiver()
    const hits = receiver.hits
    await withServer({}, async ({ url, token, running, clock }) => {
      const before = await scrape(url)
      assert.equal(before.get('taskd_http_requests_total')?.type, 'COUNTER')
      assert.equal(before.get('taskd_http_request_duration_seconds')?.type, 'HISTOGRAM')
      for (const name of ['taskd_automation_runs', 'taskd_agent_kickoffs']) assert.equal(before.get(name)?.type, 'GAUGE')
      assert.ok(valueOf(before, 'taskd_database_size_bytes') > 0)
      assert.equal(valueOf(before, 'taskd_outbox_pending'), 0)

      const board = (await call(url, token, 'POST', '/v1/boards', { name: 'Ops', key_prefix: 'OPS' })).board
      await call(url, token, 'POST', '/v1/webhooks', { name: 'r', url: `${receiver!.url}/ok`, events: ['card.created'], boards: [] })
      const card = (await call(url, token, 'POST', '/v1/cards', { board: board.id, title: 'one' })).card
      await call(url, token, 'GET', `/v1/cards/${card.id}`)
      assert.equal((await fetch(`${url}/v1/cards/${card.id}`)).status, 401)
      assert.equal((await fetch(`${url}/no/such/${card.id}`)).status, 404)

      // The delivery's counter moves once the scheduler has recorded it (the receiver saw it first).
      let after = before
      await until('the delivery recorded', async () => {
        after = await scrape(url)
        return hits.length === 1 && valueOf(after, 'taskd_webhook_deliveries_total', { outcome: 'delivered' }) === 1
      })
      assert.equal(valueOf(after, 'taskd_http_requests_total', { method: 'POST', route: '/v1/boards', status: '201' }), 1)
      assert.equal(valueOf(after, 'taskd_http_requests_total', { method: 'POST', route: '/v1/cards', status: '201' }), 1)
      assert.equal(valueOf(after, 'taskd_http_requests_total', { method: 'GET', route: '/v1/cards/{id}', status: '200' }), 1)
      assert.equal(valueOf(after, 'taskd_http_requests_total', { method: 'GET', route: '/v1/cards/{id}', status: '401' }), 1)
      assert.equal(valueOf(after, 'taskd_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1)
      const routes = after.get('taskd_http_requests_total')!.metrics.map((m) => m.labels!.route)
      assert.ok(!routes.some((r) => r.includes(card.id)), 'route patterns, never raw paths')
      // The parser folds a labelled histogram's series into one (its buckets are read, not its labels): the type and
      // buckets from it, the count of one series from the text.
      assert.ok(after.get('taskd_http_request_duration_seconds')!.metrics[0].buckets?.['+Inf'])
      assert.match(lastText, /^taskd_http_request_duration_seconds_count\{method="POST",route="\/v1\/cards"\} 1$/m)

      // With the scheduler stopped, a new event waits in the outbox, and its age follows the clock.
      await running.scheduler.stop()
      await call(url, token, 'POST', '/v1/cards', { board: board.id, title: 'two' })
      clock.advance(90_000)
      const backlog = await scrape(url)
      assert.equal(valueOf(backlog, 'taskd_outbox_pending'), 1)
      assert.equal(valueOf(backlog, 'taskd_outbox_oldest_pending_age_seconds'), 90)
    })
  } finally {
    await receiver?.close()
  }
})

test('/metrics with TASKD_METRICS_TOKEN asks for that bearer token (401 otherwise); without one it answers a loopback socket only when no proxy header says the request came through a proxy (403 otherwise)', async () => {
  const metricsToken = 'metrics-token-0123456789'
  await withServer({ metricsToken }, async ({ url, token }) => {
    for (const authorization of [undefined, `Bearer ${token}`, `Bearer ${metricsToken}x`, metricsToken]) {
      const res = await fetch(`${url}/metrics`, { headers: authorization ? { authorization } : {} })
      assert.equal(res.status, 401, `refused: ${authorization}`)
      assert.equal((await res.json()).error.code, 'unauthorized')
    }
    await scrape(url, { authorization: `Bearer ${metricsToken}` })
  })
  for (const settings of [{}, { trustProxy: 'loopback' }]) {
    await withServer(settings, async ({ url }) => {
      // A reverse proxy on this machine connects from loopback whoever its client is: its headers give it away.
      const proxied: Record<string, string>[] = [
        { 'x-forwarded-for': '203.0.113.9' },
        { 'x-forwarded-for': '127.0.0.1' },
        { forwarded: 'for=203.0.113.9' },
        { 'x-real-ip': '203.0.113.9' },
      ]
      for (const headers of proxied) {
        const res = await fetch(`${url}/metrics`, { headers })
        assert.equal(res.status, 403, `refused with ${JSON.stringify(headers)}`)
        const body = await res.json()
        assert.equal(body.error.code, 'forbidden')
        assert.match(body.error.message, /TASKD_METRICS_TOKEN/)
      }
      await scrape(url)
    })
  }
})

test('X-Request-Id: a sane one is echoed, anything else replaced by a generated id, on answers and errors alike', async () => {
  const c = await seededApp()
  try {
    const echoed = await c.t.req('GET', '/v1/users/me', { token: c.tokens.member.read, headers: { 'x-request-id': 'trace-42.a_b' } })
    assert.equal(echoed.headers.get('x-request-id'), 'trace-42.a_b')
    const ids = new Set<string>()
    for (const sent of [undefined, 'has space', 'x'.repeat(129), 'semi;colon']) {
      const res = await c.t.req('GET', '/v1/nothing-here', { headers: sent === undefined ? {} : { 'x-request-id': sent } })
      assert.equal(res.status, 404)
      const id = res.headers.get('x-request-id') ?? ''
      assert.match(id, /^[0-9a-f-]{36}$/, `generated for ${sent}`)
      ids.add(id)
    }
    assert.equal(ids.size, 4, 'a new id each time')
    assert.match((await c.t.req('POST', '/v1/hooks/unknownpath', { body: {} })).headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
  } finally {
    await c.t.close()
  }
})

test('TASKD_RATE_LIMIT=3: RateLimit-* headers per token, a limit per address for public routes and refused tokens (by the injected clock), none on operational routes or incoming endpoints', async () => {
  const c = await seededApp({ rateLimit: '3' })
  try {
    const limits = (r: { headers: Headers }) => ['limit', 'remaining', 'reset'].map((h) => r.headers.get(`ratelimit-${h}`))
    for (const remaining of ['2', '1', '0']) {
      const doc = await c.t.req('GET', '/v1/openapi.json')
      assert.equal(doc.status, 200)
      assert.deepEqual(limits(doc), ['3', remaining, '60'])
      assert.equal(doc.headers.get('ratelimit-policy'), '3;w=60')
    }
    const refused = await c.t.req('GET', '/v1/openapi.json')
    assert.equal(refused.status, 429)
    assert.equal(refused.body.error.code, 'rate_limited')
    assert.deepEqual(limits(refused), ['3', '0', '60'])
    assert.equal(refused.headers.get('retry-after'), '60')
    // Token guessing from the same address is refused too; a valid token has its own count.
    const guess = await c.t.req('GET', '/v1/users/me', { token: `tt_${'A'.repeat(43)}` })
    assert.equal(guess.status, 429)
    const member = await c.t.req('GET', '/v1/users/me', { token: c.tokens.member.read })
    assert.equal(member.status, 200)
    assert.deepEqual(limits(member), ['3', '2', '60'])
    for (const p of ['/healthz', '/readyz', '/metrics', '/v1/hooks/unknownpath']) {
      const res = await c.t.req('GET', p)
      assert.notEqual(res.status, 429, p)
      assert.equal(res.headers.get('ratelimit-limit'), null, p)
    }
    c.t.clock.advance(30_000)
    assert.equal((await c.t.req('GET', '/v1/openapi.json')).status, 429, 'still within the minute')
    c.t.clock.advance(30_000)
    const again = await c.t.req('GET', '/v1/openapi.json')
    assert.equal(again.status, 200)
    assert.deepEqual(limits(again), ['3', '2', '60'])
    // A refused token counts against the address like a public page.
    for (const token of ['tt_short', `tt_${'B'.repeat(43)}`]) assert.equal((await c.t.req('GET', '/v1/users/me', { token })).status, 401)
    const unauth = await c.t.req('GET', '/v1/users/me')
    assert.equal(unauth.status, 429)
  } finally {
    await c.t.close()
  }
  const off = await seededApp()
  try {
    const res = await off.t.req('GET', '/v1/users/me', { token: off.tokens.member.read })
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('ratelimit-limit'), null, 'serve without config keeps the limit off')
  } finally {
    await off.t.close()
  }
})
