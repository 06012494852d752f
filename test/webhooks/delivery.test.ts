// Delivery behaviour against real local receivers with a fake clock: outcomes, retry spacing, signatures, headers, logs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { dbGet } from '../helpers/db.js'
import { createCard, createSub, outboxRows, signaturesValid, webhookApp, type WebhookApp } from './fixtures.js'

const DELAYS = [60_000, 120_000, 300_000, 1_800_000]

async function withApp(fn: (c: WebhookApp) => Promise<void>, overrides: Record<string, unknown> = {}): Promise<void> {
  const c = await webhookApp(overrides)
  try {
    await fn(c)
  } finally {
    await c.close()
  }
}

const logsOf = async (c: WebhookApp, id: string) => (await c.t.req('GET', `/v1/webhooks/${id}/logs`, { token: c.tokens.owner.read })).body.items
const subOf = async (c: WebhookApp, id: string) => (await c.t.req('GET', `/v1/webhooks/${id}`, { token: c.tokens.owner.read })).body.webhook

test('200: one signed attempt with every header, logged, marked on the subscription', () =>
  withApp(async (c) => {
    const secret = 'whsec_test_secret'
    const { webhook } = await createSub(c, c.tokens.owner.write, {
      url: `${c.receiver.url}/ok`,
      method: 'PUT',
      secret,
      auth: { type: 'bearer', token: 'tok-123' },
      headers: { 'X-Extra': 'yes', authorization: 'static loses' },
    })
    const card = await createCard(c, c.tokens.owner.write)
    assert.equal(c.receiver.hits.length, 0, 'nothing is sent on the request that caused the event')
    assert.equal(await c.scheduler.runOnce(), 1)
    assert.equal(c.receiver.hits.length, 1)
    const hit = c.receiver.hits[0]
    assert.equal(hit.method, 'PUT')
    assert.equal(hit.headers['content-type'], 'application/json')
    assert.match(hit.headers['user-agent'] as string, /^taskd-webhooks\/\d+\.\d+\.\d+/)
    assert.equal(hit.headers['x-webhook-event'], 'card.created')
    assert.equal(hit.headers['x-webhook-delivery'], hit.json.id)
    assert.equal(hit.headers.authorization, 'Bearer tok-123', 'first-class auth wins over a static header of the same name')
    assert.equal(hit.headers['x-extra'], 'yes')
    assert.ok(await signaturesValid(secret, hit))
    assert.deepEqual(Object.keys(hit.json), ['id', 'event', 'timestamp', 'data'])
    assert.equal(hit.json.event, 'card.created')
    assert.equal(hit.json.timestamp, new Date(c.t.clock.now()).toISOString())
    assert.equal(hit.json.data.id, card.id)
    assert.equal(hit.json.data.key, card.key)

    const logs = await logsOf(c, webhook.id)
    assert.equal(logs.length, 1)
    assert.deepEqual(
      { ...logs[0], id: undefined, duration_ms: undefined },
      {
        id: undefined,
        delivery_id: hit.json.id,
        event: 'card.created',
        attempt: 1,
        status_code: 200,
        outcome: 'delivered',
        duration_ms: undefined,
        at: new Date(c.t.clock.now()).toISOString(),
        request_body: hit.body,
        response_excerpt: 'thanks',
      },
    )
    assert.deepEqual((await subOf(c, webhook.id)).last_delivery, { status_code: 200, outcome: 'delivered', at: logs[0].at })
    assert.equal((await outboxRows(c))[0].status, 'delivered')
    assert.equal(await c.scheduler.runOnce(), 0, 'a delivered row is never sent again')
  }))

test('500: five attempts spaced by the configured delays with one delivery id, then failed', () =>
  withApp(
    async (c) => {
      const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/status/500`, secret: 's3cret' })
      await createCard(c, c.tokens.owner.write)
      const dueTimes: number[] = []
      for (let attempt = 1; attempt <= 5; attempt++) {
        assert.equal(await c.scheduler.runOnce(), 1, `attempt ${attempt}`)
        const row = (await outboxRows(c))[0]
        assert.equal(row.attempts, attempt)
        if (attempt < 5) {
          assert.equal(row.status, 'pending')
          dueTimes.push(row.due_at)
          c.t.clock.advance(row.due_at - c.t.clock.now() - 1)
          assert.equal(await c.scheduler.runOnce(), 0, 'not before it is due')
          c.t.clock.advance(1)
        } else {
          assert.equal(row.status, 'failed')
        }
      }
      const start = Date.parse('2026-11-21T12:00:00.000Z')
      assert.deepEqual([dueTimes[0] - start, ...dueTimes.slice(1).map((t, i) => t - dueTimes[i])], DELAYS)
      assert.equal(c.receiver.hits.length, 5)
      assert.equal(new Set(c.receiver.hits.map((h) => h.json.id)).size, 1, 'the same delivery id on every retry')
      assert.equal(new Set(c.receiver.hits.map((h) => h.headers['x-webhook-delivery'])).size, 1)
      assert.equal(new Set(c.receiver.hits.map((h) => h.body)).size, 1, 'the exact same body every time')
      for (const hit of c.receiver.hits) assert.ok(await signaturesValid('s3cret', hit))
      const logs = await logsOf(c, webhook.id)
      assert.deepEqual(
        logs.map((l: any) => [l.attempt, l.outcome, l.status_code]),
        [
          [5, 'failed', 500],
          [4, 'retrying', 500],
          [3, 'retrying', 500],
          [2, 'retrying', 500],
          [1, 'retrying', 500],
        ],
      )
      assert.equal(logs[0].response_excerpt, 'answered 500')
      assert.match(logs[0].error, /gave up after 5 attempts/)
      assert.deepEqual((await subOf(c, webhook.id)).last_delivery, { status_code: 500, outcome: 'failed', at: logs[0].at })
      c.t.clock.advance(DELAYS[3] * 10)
      assert.equal(await c.scheduler.runOnce(), 0, 'never a sixth attempt')
    },
    { webhookRetryDelays: '60,120,300,1800' },
  ))

for (const status of [400, 410]) {
  test(`${status}: logged once and dropped, never retried`, () =>
    withApp(async (c) => {
      const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/status/${status}` })
      await createCard(c, c.tokens.owner.write)
      assert.equal(await c.scheduler.runOnce(), 1)
      c.t.clock.advance(DELAYS.reduce((a, b) => a + b) * 2)
      assert.equal(await c.scheduler.runOnce(), 0)
      assert.equal(c.receiver.hits.length, 1)
      const logs = await logsOf(c, webhook.id)
      assert.deepEqual(
        logs.map((l: any) => [l.attempt, l.outcome, l.status_code]),
        [[1, 'dropped', status]],
      )
      assert.equal((await outboxRows(c))[0].status, 'dropped')
      assert.deepEqual((await subOf(c, webhook.id)).last_delivery.outcome, 'dropped')
    }))
}

test('a receiver hanging past the timeout is a transient failure, retried after the first delay', () =>
  withApp(
    async (c) => {
      const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/hang` })
      await createCard(c, c.tokens.owner.write)
      assert.equal(await c.scheduler.runOnce(), 1)
      assert.equal(c.receiver.hits[0].answered, false, 'the receiver never answered: the attempt ended on its timeout')
      const [log] = await logsOf(c, webhook.id)
      assert.equal(log.outcome, 'retrying')
      assert.equal(log.status_code, null)
      assert.match(log.error, /timed out after 200 ms/)
      const row = (await outboxRows(c))[0]
      assert.equal(row.due_at - c.t.clock.now(), DELAYS[0])
      c.t.clock.advance(DELAYS[0])
      assert.equal(await c.scheduler.runOnce(), 1)
      assert.equal(c.receiver.hits.length, 2)
      assert.equal(c.receiver.hits[0].json.id, c.receiver.hits[1].json.id)
    },
    { webhookTimeoutMs: 200 },
  ))

test('a reset connection is retried', () =>
  withApp(async (c) => {
    const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/reset` })
    await createCard(c, c.tokens.owner.write)
    await c.scheduler.runOnce()
    const [log] = await logsOf(c, webhook.id)
    assert.deepEqual([log.outcome, log.status_code], ['retrying', null])
    assert.ok(log.error.length > 0)
    assert.equal((await outboxRows(c))[0].status, 'pending')
  }))

test('a redirect is not followed and not retried: the attempt fails', () =>
  withApp(async (c) => {
    const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/redirect` })
    await createCard(c, c.tokens.owner.write)
    await c.scheduler.runOnce()
    c.t.clock.advance(DELAYS[0] * 100)
    await c.scheduler.runOnce()
    assert.deepEqual(
      c.receiver.hits.map((h) => h.path),
      ['/redirect'],
      '/landed is never requested',
    )
    const logs = await logsOf(c, webhook.id)
    assert.deepEqual(
      logs.map((l: any) => [l.outcome, l.status_code]),
      [['failed', 302]],
    )
    assert.match(logs[0].error, /redirects are not followed/)
    assert.equal((await outboxRows(c))[0].status, 'failed')
  }))

test('basic and header authentication, POST by default, no signature without a secret', () =>
  withApp(async (c) => {
    await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok?basic`, auth: { type: 'basic', username: 'ann', password: 'p:w' } })
    await createSub(c, c.tokens.owner.write, {
      url: `${c.receiver.url}/ok?header`,
      auth: { type: 'header', header_name: 'X-Api-Key', header_value: 'k1' },
      headers: { 'x-api-key': 'loses' },
    })
    await createCard(c, c.tokens.owner.write)
    assert.equal(await c.scheduler.runOnce(), 2)
    const basic = c.receiver.hits.find((h) => h.path.endsWith('basic'))!
    const header = c.receiver.hits.find((h) => h.path.endsWith('header'))!
    assert.equal(basic.method, 'POST')
    assert.equal(basic.headers.authorization, `Basic ${Buffer.from('ann:p:w').toString('base64')}`)
    assert.equal(header.headers['x-api-key'], 'k1')
    assert.equal(basic.headers['x-service-signature'], undefined)
    assert.equal(basic.headers['x-webhook-signature'], undefined)
    assert.notEqual(basic.json.id, header.json.id, 'each subscription gets its own delivery id')
  }))

test('only the newest 25 attempts are kept per subscription', () =>
  withApp(async (c) => {
    const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok`, events: ['card.created'] })
    for (let i = 0; i < 5; i++) await createCard(c, c.tokens.owner.write, `old ${i}`)
    assert.equal(await c.scheduler.runOnce(), 5)
    c.t.clock.advance(1000)
    for (let i = 0; i < 25; i++) await createCard(c, c.tokens.owner.write, `new ${i}`)
    assert.equal(await c.scheduler.runOnce(), 25)
    const logs = await logsOf(c, webhook.id)
    assert.equal(logs.length, 25)
    const titles: string[] = logs.map((l: any) => JSON.parse(l.request_body).data.title)
    assert.deepEqual(titles.sort(), Array.from({ length: 25 }, (_, i) => `new ${i}`).sort())
    c.t.clock.advance(1000)
    await createCard(c, c.tokens.owner.write, 'newest')
    await c.scheduler.runOnce()
    const after = await logsOf(c, webhook.id)
    assert.equal(JSON.parse(after[0].request_body).data.title, 'newest', 'newest first')
    assert.equal(after.length, 25)
    const count = (await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM webhook_logs'))!
    assert.equal(Number(count.n), 25, 'older rows are deleted, not just hidden')
  }))

test('more than 25 attempts of two subscriptions at once: each keeps 25 logs', () =>
  withApp(async (c) => {
    const subs = [
      (await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok`, events: ['card.created'] })).webhook,
      (await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok`, events: ['card.created'] })).webhook,
    ]
    for (let i = 0; i < 30; i++) await createCard(c, c.tokens.owner.write, `card ${i}`)
    assert.equal(await c.scheduler.runOnce(), 60)
    for (const w of subs) assert.equal((await logsOf(c, w.id)).length, 25)
    const count = (await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM webhook_logs'))!
    assert.equal(Number(count.n), 50)
  }))

test('a secret blanked on edit keeps signing with the stored one; null stops signing', () =>
  withApp(async (c) => {
    const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok`, secret: 'keep-me' })
    assert.equal((await c.t.req('PATCH', `/v1/webhooks/${webhook.id}`, { token: c.tokens.owner.write, body: { secret: '', name: 'renamed' } })).status, 200)
    await createCard(c, c.tokens.owner.write)
    await c.scheduler.runOnce()
    assert.ok(await signaturesValid('keep-me', c.receiver.hits[0]))
    assert.equal((await c.t.req('PATCH', `/v1/webhooks/${webhook.id}`, { token: c.tokens.owner.write, body: { secret: null } })).body.webhook.has_secret, false)
    await createCard(c, c.tokens.owner.write)
    await c.scheduler.runOnce()
    assert.equal(c.receiver.hits[1].headers['x-service-signature'], undefined)
  }))

test('a receiver that echoes the request headers never shows the secret or credentials back through the log', () =>
  withApp(async (c) => {
    const secrets = { secret: 'sig-secret-4711', token: 'tt_bearer_value_0815', cookie: 'session=cookie-value-42', header: 'api-key-"quoted"\\9' }
    const bearer = await createSub(c, c.tokens.owner.write, {
      url: `${c.receiver.url}/echo`,
      secret: secrets.secret,
      auth: { type: 'bearer', token: secrets.token },
      headers: { Cookie: secrets.cookie, 'X-Team': 'ops-visible' },
    })
    const keyed = await createSub(c, c.tokens.owner.write, {
      url: `${c.receiver.url}/echo`,
      auth: { type: 'header', header_name: 'X-Api-Key', header_value: secrets.header },
    })
    const basic = await createSub(c, c.tokens.owner.write, {
      url: `${c.receiver.url}/echo`,
      auth: { type: 'basic', username: 'ann', password: 'pass-word-99' },
    })
    for (const s of [bearer, keyed, basic])
      assert.equal((await c.t.req('POST', `/v1/webhooks/${s.webhook.id}/test`, { token: c.tokens.owner.write })).status, 202)
    await c.scheduler.runOnce()
    const echoed = c.receiver.hits.filter((h) => h.path === '/echo')
    assert.equal(echoed.length, 3, 'the receiver got (and echoed) every header')
    const excerpts = [...(await logsOf(c, bearer.webhook.id)), ...(await logsOf(c, keyed.webhook.id)), ...(await logsOf(c, basic.webhook.id))].map(
      (l: { response_excerpt: string }) => l.response_excerpt,
    )
    assert.equal(excerpts.length, 3)
    const all = excerpts.join('\n')
    const basicValue = Buffer.from('ann:pass-word-99').toString('base64')
    for (const leaked of [secrets.secret, secrets.token, 'session=cookie-value-42', 'api-key-', basicValue, 'pass-word-99']) {
      assert.ok(!all.includes(leaked), `the log shows no ${leaked}: ${all}`)
    }
    assert.ok(all.includes('[redacted]'))
    assert.ok(all.includes('ops-visible'), 'other echoed headers stay readable')
    // Only the creator sees what the receiver answered: an admin reading the log gets no excerpt at all.
    const asAdmin = (await c.t.req('GET', `/v1/webhooks/${bearer.webhook.id}/logs`, { token: c.tokens.admin.read })).body.items
    assert.equal(asAdmin.length, 1)
    assert.equal(asAdmin[0].response_excerpt, '')
  }))
