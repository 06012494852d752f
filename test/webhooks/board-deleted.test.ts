// A board deleted for good: the subscriptions that named it receive its deletion events (card.deleted, comment.deleted,
// list.deleted) although the board, its members and their link to it are gone by the time they are delivered; one that
// named only that board is then paused, marked board_deleted, and covers nothing.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createCard, createSub, webhookApp } from './fixtures.js'

test('board-scoped subscriptions receive the deletion events of their board deleted for good, then the only-board one is paused', async () => {
  const c = await webhookApp()
  try {
    const tok = c.tokens.member.write
    const temp = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Temp' } })).body.board
    const events = ['card.*', 'comment.*', 'list.*']
    const only = (await createSub(c, tok, { url: `${c.receiver.url}/only`, boards: [temp.id], events })).webhook
    const both = (await createSub(c, tok, { url: `${c.receiver.url}/both`, boards: [temp.id, c.board.id], events })).webhook
    const other = (await createSub(c, tok, { url: `${c.receiver.url}/other`, boards: [c.board.id], events })).webhook
    const a = await createCard(c, tok, 'Alpha', temp.id)
    await createCard(c, tok, 'Beta', temp.id)
    assert.equal((await c.t.req('POST', '/v1/comments', { token: tok, body: { card: a.id, body: 'Note' } })).status, 201)
    await c.scheduler.runOnce()
    const sent = (path: string) =>
      c.receiver.hits
        .filter((h) => h.path === path)
        .map((h) => h.json.event)
        .sort()
    assert.deepEqual(sent('/only'), ['card.created', 'card.created', 'comment.added'])
    // Queued before the deletion, not yet delivered: about a card that will be gone, so it stays unsent.
    assert.equal((await c.t.req('PATCH', `/v1/cards/${a.id}`, { token: tok, body: { title: 'Alpha 2' } })).status, 200)

    assert.equal((await c.t.req('DELETE', `/v1/boards/${temp.id}?permanent=true`, { token: c.tokens.owner.write })).status, 204)
    await c.scheduler.runOnce()
    const farewell = ['card.deleted', 'card.deleted', 'comment.deleted', 'list.deleted', 'list.deleted', 'list.deleted']
    assert.deepEqual(sent('/only'), [...farewell, 'card.created', 'card.created', 'comment.added'].sort())
    assert.deepEqual(sent('/both'), [...farewell, 'card.created', 'card.created', 'comment.added'].sort())
    assert.deepEqual(sent('/other'), [], 'a subscription that never named the board gets none of it')
    const deleted = c.receiver.hits.find((h) => h.path === '/only' && h.json.event === 'card.deleted')!.json
    assert.equal(deleted.data.permanent, true)
    assert.equal(deleted.data.board.id, temp.id)

    const logs = (await c.t.req('GET', `/v1/webhooks/${only.id}/logs`, { token: c.tokens.owner.read })).body.items
    const updated = logs.find((l: { event: string }) => l.event === 'card.updated')
    assert.equal(updated.outcome, 'dropped')

    // Afterwards: the one that named only the board is paused and says why; the other keeps its other board.
    const get = async (id: string) => (await c.t.req('GET', `/v1/webhooks/${id}`, { token: tok })).body.webhook
    const paused = await get(only.id)
    assert.deepEqual([paused.active, paused.paused_reason, paused.boards], [false, 'board_deleted', []])
    const kept = await get(both.id)
    assert.deepEqual([kept.active, kept.paused_reason, kept.boards], [true, null, [c.board.id]])
    assert.equal((await get(other.id)).paused_reason, null)
    const on = await c.t.req('PATCH', `/v1/webhooks/${only.id}`, { token: tok, body: { active: true } })
    assert.deepEqual([on.body.webhook.active, on.body.webhook.paused_reason, on.body.webhook.boards], [true, null, []])
    await createCard(c, tok, 'Elsewhere')
    await c.scheduler.runOnce()
    assert.deepEqual(sent('/only'), [...farewell, 'card.created', 'card.created', 'comment.added'].sort(), 'it covers no board: nothing more')
  } finally {
    await c.close()
  }
})

test('a subscription a person paused before the deletion events are delivered does not receive them', async () => {
  const c = await webhookApp()
  try {
    const tok = c.tokens.member.write
    const temp = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Temp' } })).body.board
    const sub = (await createSub(c, tok, { url: `${c.receiver.url}/only`, boards: [temp.id, c.board.id], events: ['card.*'] })).webhook
    await createCard(c, tok, 'Alpha', temp.id)
    await c.scheduler.runOnce()
    assert.equal((await c.t.req('DELETE', `/v1/boards/${temp.id}?permanent=true`, { token: c.tokens.owner.write })).status, 204)
    assert.equal((await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: tok, body: { active: false } })).status, 200)
    await c.scheduler.runOnce()
    assert.deepEqual(
      c.receiver.hits.map((h) => h.json.event),
      ['card.created'],
    )
  } finally {
    await c.close()
  }
})
