// Scheduler guarantees: membership re-checked at delivery, paused/deleted subscriptions, leases, DNS refusal, graceful stop, wake on commit.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Worker } from 'node:worker_threads'
import { createWebhook } from '../../src/resources/webhooks/service.js'
import { getUser } from '../../src/resources/users/store.js'
import { claimDueRows } from '../../src/delivery/store.js'
import { OutboxScheduler } from '../../src/delivery/scheduler.js'
import { SendThread } from '../../src/delivery/send-thread.js'
import { createCard, createSub, outboxRows, senderThrough, signaturesValid, webhookApp, type WebhookApp } from './fixtures.js'

async function withApp(fn: (c: WebhookApp) => Promise<void>, overrides: Record<string, unknown> = {}): Promise<void> {
  const c = await webhookApp(overrides)
  try {
    await fn(c)
  } finally {
    await c.close()
  }
}

const logsOf = async (c: WebhookApp, id: string) => (await c.t.req('GET', `/v1/webhooks/${id}/logs`, { token: c.tokens.owner.read })).body.items

test('a member who leaves the board stops receiving: queued rows are dropped unsent, new events are not queued', () =>
  withApp(async (c) => {
    const mine = await createSub(c, c.tokens.member.write, { url: `${c.receiver.url}/ok?member`, boards: [c.board.id] })
    const admins = await createSub(c, c.tokens.admin.write, { url: `${c.receiver.url}/ok?admin`, boards: [c.board.id] })
    await createCard(c, c.tokens.owner.write, 'queued before leaving')
    assert.equal((await c.t.req('DELETE', `/v1/boards/${c.board.id}/members/${c.member.id}`, { token: c.tokens.owner.write })).status, 204)
    // The admin left too: owners and admins are exempt from the membership re-check.
    assert.equal((await c.t.req('DELETE', `/v1/boards/${c.board.id}/members/${c.admin.id}`, { token: c.tokens.owner.write })).status, 204)
    await c.scheduler.runOnce()
    assert.deepEqual(
      c.receiver.hits.map((h) => h.path),
      ['/ok?admin'],
      "only the admin's subscription still receives the card event",
    )
    const logs = await logsOf(c, mine.webhook.id)
    assert.deepEqual(
      logs.map((l: any) => [l.outcome, l.status_code]),
      [['dropped', null]],
    )
    assert.match(logs[0].error, /no longer a member/)
    await createCard(c, c.tokens.owner.write, 'after leaving')
    assert.equal((await outboxRows(c)).filter((r) => r.webhook_id === mine.webhook.id).length, 1, 'nothing new queued for the member')
    await c.scheduler.runOnce()
    assert.equal(c.receiver.hits.filter((h) => h.path === '/ok?member').length, 0)
    assert.equal(admins.webhook.created_by.id, c.admin.id)
  }))

test('a paused subscription sends nothing it had queued; a deleted one leaves nothing behind', () =>
  withApp(async (c) => {
    const paused = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok?paused` })
    const deleted = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok?deleted` })
    await createCard(c, c.tokens.owner.write)
    await c.t.req('PATCH', `/v1/webhooks/${paused.webhook.id}`, { token: c.tokens.owner.write, body: { active: false } })
    assert.equal((await c.t.req('DELETE', `/v1/webhooks/${deleted.webhook.id}`, { token: c.tokens.owner.write })).status, 204)
    await c.scheduler.runOnce()
    assert.equal(c.receiver.hits.length, 0)
    assert.deepEqual(
      (await logsOf(c, paused.webhook.id)).map((l: any) => l.outcome),
      ['dropped'],
    )
    assert.deepEqual(
      (await outboxRows(c)).map((r) => [r.webhook_id, r.status]),
      [[paused.webhook.id, 'dropped']],
    )
  }))

test('a claim whose process died comes back when its lease runs out, with the same delivery id', () =>
  withApp(
    async (c) => {
      await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok` })
      await createCard(c, c.tokens.owner.write)
      const now = c.t.clock.now()
      const [claimed] = await claimDueRows(c.t.deps.db.q, now, now + 5000, 10) // a "crashed" process's claim
      assert.ok(claimed)
      assert.equal(await c.scheduler.runOnce(), 0, 'leased rows are not claimed again')
      c.t.clock.advance(5000)
      assert.equal(await c.scheduler.runOnce(), 0, 'a lease still holds at its last millisecond')
      c.t.clock.advance(1)
      assert.equal(await c.scheduler.runOnce(), 1)
      assert.equal(c.receiver.hits[0].json.id, claimed.id)
    },
    { webhookLeaseMs: 5000 },
  ))

test('a name resolving to a private address is refused at delivery unless private targets are allowed', () =>
  withApp(async (c) => {
    const owner = (await getUser(c.t.deps.db.q, c.owner.id))!
    const actor = { user: owner, tokenId: 'x', permission: 'write' as const }
    const port = new URL(c.receiver.url).port
    const { webhook } = await createWebhook(c.t.deps, actor, { name: 'rebind', url: `http://hooks.example.com:${port}/ok`, events: ['card.*'], boards: [] })
    await createCard(c, c.tokens.owner.write)
    const lookups: string[] = []
    const lookup = async (host: string) => {
      lookups.push(host)
      return [{ address: '127.0.0.1', family: 4 }]
    }
    const strictDeps = { ...c.t.deps, config: { ...c.t.deps.config, allowPrivateTargets: false } }
    const strict = new OutboxScheduler(strictDeps, { sender: senderThrough(lookup), log: () => {} })
    try {
      assert.equal(await strict.runOnce(), 1)
    } finally {
      await strict.stop(100)
    }
    assert.deepEqual(lookups, ['hooks.example.com'])
    assert.equal(c.receiver.hits.length, 0)
    const [log] = await logsOf(c, webhook.id)
    assert.equal(log.outcome, 'failed')
    assert.match(log.error, /target refused: .*127\.0\.0\.1/)
    assert.equal((await outboxRows(c))[0].status, 'failed')

    // Same resolver with private targets allowed: the pinned lookup is what connects, so the receiver gets it.
    await createCard(c, c.tokens.owner.write)
    const relaxed = new OutboxScheduler(c.t.deps, { sender: senderThrough(lookup), log: () => {} })
    try {
      assert.equal(await relaxed.runOnce(), 1)
    } finally {
      await relaxed.stop(100)
    }
    assert.equal(c.receiver.hits.length, 1)
    assert.equal(c.receiver.hits[0].headers.host, `hooks.example.com:${port}`)
  }))

test('started: a commit wakes the scheduler at once; stop lets the attempt in flight finish and record', () =>
  withApp(
    async (c) => {
      const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/slow/300` })
      // Its safety-net poll comes after an hour: only the wake-up after the commit can send the event in the test's time.
      const scheduler = new OutboxScheduler(c.t.deps, { pollMs: 3_600_000, log: () => {} })
      c.t.deps.onOutboxWrite = () => scheduler.wake()
      scheduler.start()
      try {
        await createCard(c, c.tokens.owner.write)
        while (c.receiver.hits.length === 0) await new Promise((r) => setTimeout(r, 5))
        await scheduler.stop(5000)
        assert.equal((await outboxRows(c))[0].status, 'delivered', 'the in-flight attempt finished before stop returned')
        assert.deepEqual(
          (await logsOf(c, webhook.id)).map((l: any) => [l.outcome, l.response_excerpt]),
          [['delivered', 'slow thanks']],
        )
        await createCard(c, c.tokens.owner.write)
        await new Promise((r) => setImmediate(r)) // the turn in which a wake-up after the commit would claim the new row
        assert.equal(await scheduler.runOnce(), 0, 'a stopped scheduler claims nothing')
        const pending = (await outboxRows(c)).filter((r) => r.status === 'pending')
        assert.deepEqual(
          pending.map((r) => r.lease_until),
          [0],
          'the new row was never claimed',
        )
        assert.equal(c.receiver.hits.length, 1)
      } finally {
        await scheduler.stop(1000)
      }
    },
    { webhookTimeoutMs: 2000 },
  ))

test('stop with an attempt outlasting the grace period: the row keeps its lease and is delivered after restart', () =>
  withApp(
    async (c) => {
      await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/hang` })
      await createCard(c, c.tokens.owner.write)
      const run = c.scheduler.runOnce()
      while (c.receiver.hits.length === 0) await new Promise((r) => setTimeout(r, 5))
      await c.scheduler.stop(50)
      const row = (await outboxRows(c))[0]
      assert.equal(row.status, 'pending')
      assert.equal(row.attempts, 0, 'the unfinished attempt is not counted')
      assert.ok(row.lease_until > c.t.clock.now())
      await run
      assert.equal((await outboxRows(c))[0].attempts, 0, 'a late result after stop is not written')
      const next = new OutboxScheduler(c.t.deps, { log: () => {} })
      try {
        assert.equal(await next.runOnce(), 0)
        c.t.clock.advance(row.lease_until + 1 - c.t.clock.now())
        assert.equal(await next.runOnce(), 1)
      } finally {
        await next.stop(100)
      }
      assert.equal(c.receiver.hits.length, 2)
      assert.equal(c.receiver.hits[0].json.id, c.receiver.hits[1].json.id)
    },
    { webhookTimeoutMs: 400, webhookLeaseMs: 10000 },
  ))

test('many events at once, started: each is sent once on the sending thread and recorded once, in batches', async () => {
  const c = await webhookApp()
  const batches: number[] = []
  const CARDS = 20
  // Resolved by the scheduler itself once every attempt is recorded: a signal, not a deadline (the test timeout bounds it).
  let allRecorded!: () => void
  const recorded = new Promise<void>((r) => (allRecorded = r))
  const scheduler = new OutboxScheduler(c.t.deps, {
    onRecorded: (batch) => {
      batches.push(batch.length)
      if (batches.reduce((a, n) => a + n, 0) >= CARDS) allRecorded()
    },
  })
  try {
    const secret = 'batch-secret'
    const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok`, secret })
    c.t.deps.onOutboxWrite = () => scheduler.wake()
    scheduler.start()
    const cards = await Promise.all(Array.from({ length: CARDS }, (_, i) => createCard(c, c.tokens.owner.write, `card ${i}`)))
    await recorded
    await scheduler.stop(5000)
    assert.ok(batches.length < cards.length, `attempts that settle together are recorded together (batches of ${batches.join(', ')})`)
    assert.deepEqual(c.receiver.hits.map((h) => h.json.data.id).sort(), cards.map((card) => card.id).sort(), 'each card sent once')
    for (const hit of c.receiver.hits) assert.ok(await signaturesValid(secret, hit))
    assert.deepEqual(
      (await outboxRows(c)).map((r) => [r.status, r.attempts]),
      cards.map(() => ['delivered', 1]),
    )
    const logs = await logsOf(c, webhook.id)
    assert.equal(logs.length, cards.length, 'one log row per delivery')
    assert.deepEqual(new Set(logs.map((l: any) => l.delivery_id)), new Set(c.receiver.hits.map((h) => h.json.id)))
  } finally {
    await scheduler.stop(1000)
    await c.close()
  }
})

test('a sending thread that dies mid-attempt: the attempt is reported, keeps its lease, and a new thread delivers it once', async () => {
  const errors: string[] = []
  const thread = new SendThread()
  const c = await webhookApp({ webhookLeaseMs: 5000, webhookTimeoutMs: 2000 })
  const scheduler = new OutboxScheduler(c.t.deps, { sender: thread, log: (m) => errors.push(m) })
  try {
    const { webhook } = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/slow/400` })
    await createCard(c, c.tokens.owner.write)
    const run = scheduler.runOnce()
    while (c.receiver.hits.length === 0) await new Promise((r) => setTimeout(r, 5))
    await (thread as unknown as { worker: Worker }).worker.terminate() // the thread dies under it: its attempt never answers
    await run
    assert.deepEqual(errors, ['webhook delivery failed unexpectedly'])
    const [row] = await outboxRows(c)
    assert.equal(row.status, 'pending')
    assert.equal(row.attempts, 0, 'the cut attempt is not counted')
    assert.equal(await scheduler.runOnce(), 0, 'its lease still holds')
    c.t.clock.advance(5001)
    assert.equal(await scheduler.runOnce(), 1, 'claimed again once the lease ran out, sent by a new thread')
    assert.equal(c.receiver.hits.length, 2)
    assert.equal(c.receiver.hits[0].json.id, c.receiver.hits[1].json.id, 'the same delivery id')
    assert.deepEqual(
      (await outboxRows(c)).map((r) => [r.status, r.attempts]),
      [['delivered', 1]],
    )
    assert.deepEqual(
      (await logsOf(c, webhook.id)).map((l: any) => l.outcome),
      ['delivered'],
    )
  } finally {
    await scheduler.stop(1000)
    await c.close()
  }
})

test('the sending thread starts with the scheduler only where a subscription is active, else with the first attempt', async () => {
  const c = await webhookApp()
  const threads = [new SendThread(), new SendThread()]
  const schedulers = threads.map((sender) => new OutboxScheduler(c.t.deps, { sender }))
  try {
    await schedulers[0].warm()
    assert.equal(threads[0].running, false, 'no subscription: no thread')
    await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok` })
    await schedulers[1].warm()
    assert.equal(threads[1].running, true, 'an active subscription: started ahead of the first event')
    await createCard(c, c.tokens.owner.write)
    assert.equal(threads[0].running, false)
    assert.equal(await schedulers[0].runOnce(), 1)
    assert.equal(threads[0].running, true, 'started by the first attempt')
    assert.equal(c.receiver.hits.length, 1)
    assert.deepEqual(
      (await outboxRows(c)).map((r) => [r.status, r.attempts]),
      [['delivered', 1]],
    )
  } finally {
    await Promise.all(schedulers.map((s) => s.stop(1000)))
    await c.close()
  }
})
