// Self-healing subscriptions, on one fixture with local receivers and the injected clock: 100 failed deliveries in a
// row pause a subscription, so do 3 days of failures with fewer, one success starts the count again; the pause comes
// with an inbox item for the creator and a webhook.paused audit entry; a logged delivery is sent again with the same
// delivery id; resuming sends nothing missed unless asked to replay, and then the missed events in order.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { OutboxScheduler } from '../../src/delivery/scheduler.js'
import { enqueueDelivery } from '../../src/events/emit.js'
import { dbAll, dbGet } from '../helpers/db.js'
import { assertErrorShape } from '../helpers/scenarios.js'
import { createCard, createSub, webhookApp, type WebhookApp } from './fixtures.js'

const DAY = 86_400_000
// A timeout generous enough that no attempt of a hundred sent at once times out (a retry would not count yet).
const ready = webhookApp({ webhookTimeoutMs: 10_000 })
after(async () => (await ready).close())

const sendAll = async (c: WebhookApp, scheduler = c.scheduler) => {
  while ((await scheduler.runOnce()) > 0);
}
const subOf = async (c: WebhookApp, id: string) => (await c.t.req('GET', `/v1/webhooks/${id}`, { token: c.tokens.owner.read })).body.webhook
const health = (c: WebhookApp, id: string) =>
  dbGet<{ failures: number; failing_since: string | null }>(c.t.deps.db, 'SELECT failures, failing_since FROM webhooks WHERE id = ?', id)
const hitsOf = (c: WebhookApp, tag: string) => c.receiver.hits.filter((h) => h.path.endsWith(`?${tag}`))

/**
 * `n` deliveries of the newest card.created event to one subscription, queued as the event's fan-out queues them (one
 * event each would need n cards made through the API, which is slow and tests nothing more).
 */
async function queueCopies(c: WebhookApp, webhookId: string, n: number): Promise<void> {
  const ev = (await dbGet<{ id: string; board_id: string; name: string; data: string; created_at: string }>(
    c.t.deps.db,
    "SELECT id, board_id, name, data, created_at FROM events WHERE name = 'card.created' ORDER BY seq DESC",
  ))!
  await c.t.deps.db.tx(async (tx) => {
    for (let i = 0; i < n; i++)
      await enqueueDelivery(c.t.deps, tx, {
        webhookId,
        eventId: ev.id,
        boardId: ev.board_id,
        event: ev.name,
        timestamp: ev.created_at,
        data: JSON.parse(ev.data),
        dueAt: c.t.clock.now(),
      })
  })
}

/** A subscription of the admin to card.created on every board, answered by the receiver path given. */
const subscribe = async (c: WebhookApp, tag: string, path: string) =>
  (await createSub(c, c.tokens.admin.write, { name: `hook ${tag}`, url: `${c.receiver.url}${path}?${tag}`, events: ['card.created'] })).webhook

test('100 failed deliveries in a row pause the subscription as failing, with an inbox item for its creator and an audit entry', async () => {
  const c = await ready
  const sub = await subscribe(c, 'hundred', '/status/410')
  await createCard(c, c.tokens.owner.write, 'First')
  await queueCopies(c, sub.id, 98)
  await sendAll(c)
  assert.equal(hitsOf(c, 'hundred').length, 99)
  assert.deepEqual(await health(c, sub.id), { failures: 99, failing_since: new Date(c.t.clock.now()).toISOString() })
  assert.equal((await subOf(c, sub.id)).active, true, '99 are not enough')

  await queueCopies(c, sub.id, 1)
  await sendAll(c)
  const paused = await subOf(c, sub.id)
  assert.deepEqual([paused.active, paused.paused_reason], [false, 'failing'])
  // Nothing more goes out: the next event finds it inactive.
  await createCard(c, c.tokens.owner.write, 'While paused')
  await sendAll(c)
  assert.equal(hitsOf(c, 'hundred').length, 100)

  const inbox = (await c.t.req('GET', '/v1/inbox?filter=kind%3D%22webhook_paused%22', { token: c.tokens.admin.read })).body
  assert.equal(inbox.items.length, 1)
  assert.deepEqual(
    { ...inbox.items[0], id: undefined },
    {
      id: undefined,
      kind: 'webhook_paused',
      card: null,
      board: null,
      comment: null,
      question: null,
      webhook: { id: sub.id, name: 'hook hundred' },
      actor: { id: 'system', name: 'taskd', kind: 'system' },
      read: false,
      read_at: null,
      created: new Date(c.t.clock.now()).toISOString(),
    },
  )
  assert.equal((await c.t.req('GET', `/v1/inbox/${inbox.items[0].id}`, { token: c.tokens.admin.read })).body.inbox_item.webhook.id, sub.id)
  const listed = await c.t.req('GET', '/v1/inbox?expand=card', { token: c.tokens.admin.read })
  assert.equal(listed.status, 200, listed.text)
  assert.equal((await c.t.req('GET', '/v1/inbox/unread', { token: c.tokens.admin.read })).body.unread, 1)
  assert.equal((await c.t.req('GET', '/v1/inbox?filter=kind%3D%22webhook_paused%22', { token: c.tokens.owner.read })).body.items.length, 0, 'only its creator')

  const audit = (
    await c.t.req('GET', `/v1/audit?filter=${encodeURIComponent(`action = "webhook.paused" && target = "${sub.id}"`)}`, { token: c.tokens.owner.read })
  ).body.items
  assert.equal(audit.length, 1)
  assert.deepEqual(
    { actor: audit[0].actor, target: audit[0].target, details: audit[0].details },
    {
      actor: { type: 'system', id: null, name: 'taskd' },
      target: { type: 'webhook', id: sub.id, name: 'hook hundred' },
      details: { reason: 'failing', failures: 100, failing_since: new Date(c.t.clock.now()).toISOString(), rule: '100 failures in a row' },
    },
  )
})

test('3 days of failures without a success pause it, also with only a few deliveries', async () => {
  const c = await ready
  const sub = await subscribe(c, 'days', '/status/503')
  await createCard(c, c.tokens.owner.write, 'Day one')
  const since = new Date(c.t.clock.now()).toISOString()
  await sendAll(c)
  // A 503 is retried: only the last attempt's failure is the delivery's, so the first days count nothing yet.
  assert.deepEqual(await health(c, sub.id), { failures: 0, failing_since: null })
  for (let attempt = 2; attempt <= 5; attempt++) {
    c.t.clock.advance(31 * 60_000)
    await sendAll(c)
  }
  const first = await health(c, sub.id)
  assert.equal(first!.failures, 1)
  assert.equal(first!.failing_since, new Date(c.t.clock.now()).toISOString(), 'failing since the fifth attempt failed')
  assert.ok(first!.failing_since! > since)
  // Refused from now on (a 410 is not retried), so each delivery fails at once.
  await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: c.tokens.admin.write, body: { url: `${c.receiver.url}/status/410?days` } })
  c.t.clock.advance(3 * DAY - 1)
  await queueCopies(c, sub.id, 1)
  await sendAll(c)
  assert.equal((await health(c, sub.id))!.failures, 2)
  assert.equal((await subOf(c, sub.id)).active, true, 'a millisecond short of 3 days')
  c.t.clock.advance(1)
  await queueCopies(c, sub.id, 1)
  await sendAll(c)
  const paused = await subOf(c, sub.id)
  assert.deepEqual([paused.active, paused.paused_reason], [false, 'failing'])
  const entry = (
    await c.t.req('GET', `/v1/audit?filter=${encodeURIComponent(`action = "webhook.paused" && target = "${sub.id}"`)}`, { token: c.tokens.owner.read })
  ).body.items[0]
  assert.deepEqual(entry.details, { reason: 'failing', failures: 3, failing_since: first!.failing_since, rule: '3 days without a success' })
})

test('one success starts the count again; PATCH active: true resumes a paused one and clears its reason and count', async () => {
  const c = await ready
  const sub = await subscribe(c, 'reset', '/status/410')
  await createCard(c, c.tokens.owner.write, 'Reset')
  await queueCopies(c, sub.id, 2)
  await sendAll(c)
  assert.deepEqual(await health(c, sub.id), { failures: 3, failing_since: new Date(c.t.clock.now()).toISOString() })
  await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: c.tokens.admin.write, body: { url: `${c.receiver.url}/ok?reset` } })
  await queueCopies(c, sub.id, 1)
  await sendAll(c)
  assert.deepEqual(await health(c, sub.id), { failures: 0, failing_since: null }, 'one success: no failure counts any more')
  await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: c.tokens.admin.write, body: { url: `${c.receiver.url}/status/410?reset` } })
  c.t.clock.advance(DAY)
  await queueCopies(c, sub.id, 2)
  await sendAll(c)
  assert.deepEqual(await health(c, sub.id), { failures: 2, failing_since: new Date(c.t.clock.now()).toISOString() }, 'counted from the success on')
  await c.t.req('DELETE', `/v1/webhooks/${sub.id}`, { token: c.tokens.admin.write })

  // The subscription the hundred failures paused: taken up again by a person.
  const [paused] = (await c.t.req('GET', '/v1/webhooks', { token: c.tokens.admin.read })).body.items.filter((w: { name: string }) => w.name === 'hook hundred')
  assert.equal(paused.paused_reason, 'failing')
  const patched = await c.t.req('PATCH', `/v1/webhooks/${paused.id}`, { token: c.tokens.admin.write, body: { active: true } })
  assert.deepEqual([patched.body.webhook.active, patched.body.webhook.paused_reason], [true, null])
  assert.deepEqual(await health(c, paused.id), { failures: 0, failing_since: null })
  await c.t.req('DELETE', `/v1/webhooks/${paused.id}`, { token: c.tokens.admin.write })
})

test('redelivery: a logged delivery goes out again as a new delivery with the same delivery id in body and header', async () => {
  const c = await ready
  const sub = await subscribe(c, 'again', '/ok')
  await createCard(c, c.tokens.owner.write, 'Again')
  await sendAll(c)
  const [first] = hitsOf(c, 'again')
  const [log] = (await c.t.req('GET', `/v1/webhooks/${sub.id}/logs`, { token: c.tokens.admin.read })).body.items
  const r = await c.t.req('POST', `/v1/webhooks/${sub.id}/logs/${log.id}/redeliver`, { token: c.tokens.admin.write })
  assert.equal(r.status, 202, r.text)
  assert.notEqual(r.body.delivery_id, first.json.id, 'a new delivery')
  await sendAll(c)
  const [, again] = hitsOf(c, 'again')
  assert.equal(again.body, first.body, 'the same body, so the same id')
  assert.equal(again.headers['x-webhook-delivery'], first.json.id)
  assert.equal(again.headers['x-webhook-event'], 'card.created')
  const logs = (await c.t.req('GET', `/v1/webhooks/${sub.id}/logs`, { token: c.tokens.admin.read })).body.items
  assert.deepEqual(
    logs.map((l: { delivery_id: string; outcome: string }) => [l.delivery_id, l.outcome]),
    [
      [r.body.delivery_id, 'delivered'],
      [first.json.id, 'delivered'],
    ],
  )
  // A redelivery can be sent again too, still with the first id; also while the subscription is off.
  await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: c.tokens.admin.write, body: { active: false } })
  assert.equal((await c.t.req('POST', `/v1/webhooks/${sub.id}/logs/${logs[0].id}/redeliver`, { token: c.tokens.owner.write })).status, 202)
  await sendAll(c)
  assert.equal(hitsOf(c, 'again')[2].headers['x-webhook-delivery'], first.json.id)
  for (const [token, path, status] of [
    [c.tokens.outsider.write, `/v1/webhooks/${sub.id}/logs/${log.id}/redeliver`, 404],
    [c.tokens.admin.write, `/v1/webhooks/${sub.id}/logs/nope/redeliver`, 404],
    [c.tokens.admin.read, `/v1/webhooks/${sub.id}/logs/${log.id}/redeliver`, 403],
  ] as const) {
    const refused = await c.t.req('POST', path, { token })
    assert.equal(refused.status, status, refused.text)
    assertErrorShape(refused.body)
  }
  await c.t.req('DELETE', `/v1/webhooks/${sub.id}`, { token: c.tokens.admin.write })
})

test('resume: nothing missed is sent without replay_since; with it, the missed events in their order', async () => {
  const c = await ready
  const sub = await subscribe(c, 'resume', '/ok')
  // Sent one at a time, so the receiver sees the order the deliveries were claimed in.
  const inOrder = new OutboxScheduler(c.t.deps, { concurrency: 1, log: () => {} })
  try {
    for (const [body, status] of [
      [{}, 409],
      [{ replay_since: 'yesterday' }, 422],
    ] as const) {
      const r = await c.t.req('POST', `/v1/webhooks/${sub.id}/resume`, { token: c.tokens.admin.write, body })
      assert.equal(r.status, status, r.text)
      assertErrorShape(r.body)
    }
    await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: c.tokens.admin.write, body: { active: false } })
    await createCard(c, c.tokens.owner.write, 'Missed 1')
    await createCard(c, c.tokens.owner.write, 'Missed 2')
    const future = new Date(c.t.clock.now() + 60_000).toISOString()
    const tooLate = await c.t.req('POST', `/v1/webhooks/${sub.id}/resume`, { token: c.tokens.admin.write, body: { replay_since: future } })
    assert.equal(tooLate.status, 422, tooLate.text)
    assert.equal(tooLate.body.error.details[0].path, 'replay_since')

    const resumed = await c.t.req('POST', `/v1/webhooks/${sub.id}/resume`, { token: c.tokens.admin.write, body: {} })
    assert.equal(resumed.status, 200, resumed.text)
    assert.deepEqual([resumed.body.webhook.active, resumed.body.webhook.paused_reason, resumed.body.replayed], [true, null, 0])
    await sendAll(c, inOrder)
    assert.equal(hitsOf(c, 'resume').length, 0, 'nothing it missed')
    await createCard(c, c.tokens.owner.write, 'After')
    await sendAll(c, inOrder)
    assert.deepEqual(
      hitsOf(c, 'resume').map((h) => h.json.data.title),
      ['After'],
    )

    c.t.clock.advance(60_000)
    await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: c.tokens.admin.write, body: { active: false } })
    c.t.clock.advance(60_000)
    const since = new Date(c.t.clock.now()).toISOString()
    for (const title of ['One', 'Two', 'Three', 'Four', 'Five']) await createCard(c, c.tokens.owner.write, title)
    await c.t.req('POST', '/v1/tags', { token: c.tokens.owner.write, body: { board: c.board.id, name: 'not taken' } })
    const replay = await c.t.req('POST', `/v1/webhooks/${sub.id}/resume`, { token: c.tokens.admin.write, body: { replay_since: since } })
    assert.equal(replay.status, 200, replay.text)
    assert.equal(replay.body.replayed, 5, 'the card.created events since then, not the tag')
    c.t.clock.advance(10)
    await sendAll(c, inOrder)
    const replayed = hitsOf(c, 'resume').slice(1)
    assert.deepEqual(
      replayed.map((h) => h.json.data.title),
      ['One', 'Two', 'Three', 'Four', 'Five'],
    )
    assert.ok(
      replayed.every((h) => h.json.timestamp === since),
      'each with the time of its event',
    )
    const events = await dbAll<{ data: string }>(c.t.deps.db, "SELECT data FROM events WHERE name = 'card.created' AND created_at >= ? ORDER BY seq", since)
    assert.deepEqual(
      replayed.map((h) => h.json.data),
      events.map((e) => JSON.parse(e.data)),
      'the original payloads',
    )
    const entry = (
      await c.t.req('GET', `/v1/audit?filter=${encodeURIComponent(`action = "webhook.resumed" && target = "${sub.id}"`)}`, { token: c.tokens.owner.read })
    ).body.items[0]
    assert.deepEqual(entry.details, { was_paused: null, replay_since: since, replayed: 5 })
  } finally {
    await inOrder.stop(1000)
  }
})
