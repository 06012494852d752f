// The test, sample, samples, events and logs routes of /v1/webhooks.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { eventCatalog } from '../../src/events/catalog.js'
import { MODULES } from '../../src/resources/index.js'

const EVENT_CATALOG = eventCatalog()
import { createCard, createSub, signaturesValid, webhookApp, type WebhookApp } from './fixtures.js'

async function withApp(fn: (c: WebhookApp) => Promise<void>): Promise<void> {
  const c = await webhookApp()
  try {
    await fn(c)
  } finally {
    await c.close()
  }
}

test('GET /v1/webhooks/events is the catalog, not a subscription id', () =>
  withApp(async (c) => {
    const r = await c.t.req('GET', '/v1/webhooks/events', { token: c.tokens.member.read })
    assert.equal(r.status, 200)
    assert.deepEqual(r.body, { items: JSON.parse(JSON.stringify(EVENT_CATALOG)) })
    // Every family's events are in it, each once.
    const names = r.body.items.map((e: { event: string }) => e.event)
    assert.equal(new Set(names).size, names.length)
    for (const name of MODULES.flatMap((m) => Object.keys(m.events ?? {}))) assert.ok(names.includes(name), `${name} is in the catalog`)
  }))

test('send test: a signed, authenticated webhook.test delivery, logged like a real one', () =>
  withApp(async (c) => {
    const { webhook } = await createSub(c, c.tokens.member.write, {
      url: `${c.receiver.url}/ok`,
      boards: [c.board.id],
      events: [],
      secret: 'test-secret',
      auth: { type: 'bearer', token: 'bt' },
      active: false,
    })
    const r = await c.t.req('POST', `/v1/webhooks/${webhook.id}/test`, { token: c.tokens.member.write })
    assert.equal(r.status, 202)
    assert.deepEqual(Object.keys(r.body), ['delivery_id'])
    assert.equal(await c.scheduler.runOnce(), 1)
    const [hit] = c.receiver.hits
    assert.equal(hit.json.id, r.body.delivery_id)
    assert.equal(hit.json.event, 'webhook.test')
    assert.equal(hit.headers['x-webhook-event'], 'webhook.test')
    assert.equal(hit.headers.authorization, 'Bearer bt')
    assert.ok(await signaturesValid('test-secret', hit))
    assert.deepEqual(hit.json.data.webhook, { id: webhook.id, name: 'hook' })
    assert.equal(hit.json.data.triggered_by.id, c.member.id)
    const logs = (await c.t.req('GET', `/v1/webhooks/${webhook.id}/logs`, { token: c.tokens.member.read })).body.items
    assert.deepEqual(
      logs.map((l: any) => [l.event, l.delivery_id, l.outcome]),
      [['webhook.test', r.body.delivery_id, 'delivered']],
    )
    assert.equal((await c.t.req('POST', `/v1/webhooks/${webhook.id}/test`, { token: c.tokens.outsider.write })).status, 404)
    assert.equal((await c.t.req('POST', `/v1/webhooks/${webhook.id}/test`, { token: c.tokens.member.read })).status, 403)
  }))

test('sample: 404 before any event; then the newest real event about one second later with a fresh delivery id', () =>
  withApp(async (c) => {
    const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok`, events: ['card.created'] })
    const none = await c.t.req('POST', `/v1/webhooks/${webhook.id}/sample`, { token: c.tokens.owner.write })
    assert.equal(none.status, 404)
    assert.equal(none.body.error.code, 'not_found')
    await createCard(c, c.tokens.owner.write, 'older')
    c.t.clock.advance(10)
    const newest = await createCard(c, c.tokens.owner.write, 'newest')
    await c.scheduler.runOnce()
    const live = c.receiver.hits.find((h) => h.json.data.id === newest.id)!
    const r = await c.t.req('POST', `/v1/webhooks/${webhook.id}/sample`, { token: c.tokens.owner.write })
    assert.equal(r.status, 202)
    assert.equal(r.body.event, 'card.created')
    assert.notEqual(r.body.delivery_id, live.json.id)
    assert.equal(await c.scheduler.runOnce(), 0, 'not sent at once')
    c.t.clock.advance(1000)
    assert.equal(await c.scheduler.runOnce(), 1)
    const sample = c.receiver.hits.at(-1)!
    assert.equal(sample.json.id, r.body.delivery_id)
    assert.deepEqual({ ...sample.json, id: 'x' }, { ...live.json, id: 'x' }, 'the live shape: same event, timestamp and data')
  }))

test("sample follows the subscription's boards", () =>
  withApp(async (c) => {
    const other = (await c.t.req('POST', '/v1/boards', { token: c.tokens.owner.write, body: { name: 'Other' } })).body.board
    const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok`, boards: [other.id] })
    await createCard(c, c.tokens.owner.write, 'on launch board')
    assert.equal((await c.t.req('POST', `/v1/webhooks/${webhook.id}/sample`, { token: c.tokens.owner.write })).status, 404)
  }))

test("samples: recent events in the delivery shape from the caller's boards; nothing sent; 400 for an unknown event", () =>
  withApp(async (c) => {
    await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok` })
    const secret = (await c.t.req('POST', '/v1/boards', { token: c.tokens.owner.write, body: { name: 'Secret' } })).body.board
    const card = await createCard(c, c.tokens.owner.write, 'visible')
    await createCard(c, c.tokens.owner.write, 'hidden from member', secret.id)
    const before = c.receiver.hits.length
    const r = await c.t.req('GET', '/v1/webhooks/samples?event=card.created', { token: c.tokens.member.read })
    assert.equal(r.status, 200)
    assert.deepEqual(
      r.body.items.map((i: any) => i.data.title),
      ['visible'],
    )
    assert.deepEqual(Object.keys(r.body.items[0]), ['id', 'event', 'timestamp', 'data'])
    assert.equal(r.body.items[0].data.id, card.id)
    const mine = await c.t.req('GET', '/v1/webhooks/samples?event=card.created', { token: c.tokens.owner.read })
    assert.deepEqual(
      mine.body.items.map((i: any) => i.data.title),
      ['hidden from member', 'visible'],
      'newest first',
    )
    assert.equal((await c.t.req('GET', '/v1/webhooks/samples?event=card.exploded', { token: c.tokens.owner.read })).status, 400)
    assert.equal(c.receiver.hits.length, before)
    await c.scheduler.runOnce()
  }))
