// A subscription never reaches past its boards: deleted boards, members who left, edits after queuing, credentials shown.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createCard, createSub, webhookApp } from './fixtures.js'
import { subscriptionsForEvent } from '../../src/events/store.js'

test('deleting the only board of a subscription for good pauses it; it never widens to every board', async () => {
  const c = await webhookApp()
  try {
    const tok = c.tokens.member.write
    const other = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Temp' } })).body.board
    const sub = (await createSub(c, tok, { url: `${c.receiver.url}/ok`, boards: [other.id] })).webhook
    assert.equal((await c.t.req('DELETE', `/v1/boards/${other.id}?permanent=true`, { token: c.tokens.owner.write })).status, 204)
    const after = (await c.t.req('GET', `/v1/webhooks/${sub.id}`, { token: tok })).body.webhook
    assert.equal(after.active, false)
    assert.deepEqual(await subscriptionsForEvent(c.t.deps.db.q, 'card.created', c.board.id), [])
    await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: tok, body: { active: true } })
    assert.deepEqual(await subscriptionsForEvent(c.t.deps.db.q, 'card.created', c.board.id), [], 're-activated, it still covers no board')
    await createCard(c, tok)
    assert.equal((await c.t.req('POST', `/v1/webhooks/${sub.id}/sample`, { token: tok })).status, 404)
  } finally {
    await c.close()
  }
})

test('a member who left a board sees neither its details nor its logged bodies through their own subscription', async () => {
  const c = await webhookApp()
  try {
    const tok = c.tokens.member.write
    const sub = (await createSub(c, tok, { url: `${c.receiver.url}/ok`, boards: [c.board.id] })).webhook
    await createCard(c, tok, 'Confidential acquisition')
    await c.scheduler.runOnce()
    assert.equal((await c.t.req('GET', `/v1/webhooks/${sub.id}/logs`, { token: tok })).body.items.length, 1)
    assert.equal((await c.t.req('DELETE', `/v1/boards/${c.board.id}/members/${c.member.id}`, { token: c.tokens.owner.write })).status, 204)
    const logs = await c.t.req('GET', `/v1/webhooks/${sub.id}/logs`, { token: tok })
    assert.deepEqual(logs.body.items, [])
    assert.ok(!logs.text.includes('Confidential'))
    assert.equal((await c.t.req('GET', `/v1/webhooks/${sub.id}/logs`, { token: c.tokens.owner.read })).body.items.length, 1, 'owners still see it')
    const expanded = await c.t.req('GET', '/v1/webhooks?expand=boards', { token: tok })
    assert.deepEqual(expanded.body.items[0].expand.boards, [])
    assert.ok(!expanded.text.includes('Launch'))
    const probe = await c.t.req('GET', `/v1/webhooks?filter=${encodeURIComponent('boards.name ~ "Launch"')}`, { token: tok })
    assert.equal(probe.status, 400, 'the filter does not follow boards into board fields')
  } finally {
    await c.close()
  }
})

test('a delivery queued before an edit is judged by the subscription as it is now', async () => {
  const c = await webhookApp()
  try {
    const tok = c.tokens.owner.write
    const sub = (await createSub(c, tok, { url: `${c.receiver.url}/ok`, events: ['card.*'] })).webhook
    await createCard(c, tok)
    await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: tok, body: { events: ['list.*'] } })
    await c.scheduler.runOnce()
    assert.equal(c.receiver.hits.length, 0)
    const logs = (await c.t.req('GET', `/v1/webhooks/${sub.id}/logs`, { token: tok })).body.items
    assert.equal(logs[0].outcome, 'dropped')
    assert.match(logs[0].error, /no longer covers/)
  } finally {
    await c.close()
  }
})

test('a static Authorization header is sent but never shown back', async () => {
  const c = await webhookApp()
  try {
    const created = await createSub(c, c.tokens.owner.write, {
      url: `${c.receiver.url}/ok`,
      headers: { Authorization: 'Bearer static-secret', 'X-Team': 'ops' },
    })
    assert.deepEqual(created.webhook.headers, { Authorization: '[redacted]', 'X-Team': 'ops' })
    const listed = await c.t.req('GET', '/v1/webhooks', { token: c.tokens.owner.read })
    assert.ok(!listed.text.includes('static-secret'))
    await createCard(c, c.tokens.owner.write)
    await c.scheduler.runOnce()
    assert.equal(c.receiver.hits[0].headers.authorization, 'Bearer static-secret')
  } finally {
    await c.close()
  }
})
