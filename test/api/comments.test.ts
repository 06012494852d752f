// Comments through HTTP: writing, listing, editing and deleting with their rights, @mentions, the events as a local
// receiver gets them, the cascade of a card deleted for good, and the add_comment automation step.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { publicBaseUrl } from '../../src/config.js'
import { AutomationRunner } from '../../src/resources/automations/runner.js'
import { seededApp } from '../helpers/app.js'
import { dbAll, dbGet } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'
import { createSub, webhookApp } from '../webhooks/fixtures.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  // The outsider is a member of another board only.
  const other = (await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })).body.board
  const card = (await t.req('POST', '/v1/cards', { token: tokens.member.write, body: { board: s.board.id, title: 'Ship it' } })).body.card
  const mine = (await t.req('POST', '/v1/comments', { token: tokens.member.write, body: { card: card.id, body: 'First!' } })).body.comment
  const theirs = (await t.req('POST', '/v1/comments', { token: tokens.admin.write, body: { card: card.id, body: 'Second' } })).body.comment
  const elsewhere = (await t.req('POST', '/v1/cards', { token: tokens.outsider.write, body: { board: other.id, title: 'Theirs' } })).body.card
  return { ...s, other, card, mine, theirs, elsewhere }
}
type C = Awaited<ReturnType<typeof fixture>>

runScenarios<C>('comments', fixture, [
  {
    name: 'a member writes a comment; the author is them',
    method: 'POST',
    path: '/v1/comments',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id, body: 'Looks **good**' }),
    status: 201,
    events: ['comment.added'],
    expect: (c: C) => ({ comment: { card: c.card.id, body: 'Looks **good**', author: { id: c.member.id, kind: 'human' }, mentions: [] } }),
  },
  {
    name: 'an admin who is not on the board may comment (admins see every board)',
    method: 'POST',
    path: '/v1/comments',
    token: (c) => c.tokens.admin.write,
    body: (c: C) => ({ card: c.elsewhere.id, body: 'ok' }),
    status: 201,
  },
  {
    name: 'a member of another board cannot see the card: 404',
    method: 'POST',
    path: '/v1/comments',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => ({ card: c.card.id, body: 'hi' }),
    status: 404,
    events: [],
  },
  {
    name: 'a read-only token cannot comment',
    method: 'POST',
    path: '/v1/comments',
    token: (c) => c.tokens.member.read,
    body: (c: C) => ({ card: c.card.id, body: 'hi' }),
    status: 403,
  },
  {
    name: 'an empty body is refused',
    method: 'POST',
    path: '/v1/comments',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id, body: '  ' }),
    status: 422,
    field: 'body',
  },
  {
    name: 'a body past 100,000 characters is refused',
    method: 'POST',
    path: '/v1/comments',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id, body: 'x'.repeat(100_001) }),
    status: 422,
    field: 'body',
  },
  {
    name: 'a missing card is named',
    method: 'POST',
    path: '/v1/comments',
    token: (c) => c.tokens.member.write,
    body: { body: 'x' },
    status: 422,
    field: 'card',
  },
  { name: 'an unknown card is 404', method: 'POST', path: '/v1/comments', token: (c) => c.tokens.member.write, body: { card: 'nope', body: 'x' }, status: 404 },
  {
    name: 'the author edits their comment',
    method: 'PATCH',
    path: (c) => `/v1/comments/${c.mine.id}`,
    token: (c) => c.tokens.member.write,
    body: { body: 'First! (edited)' },
    status: 200,
    events: [],
    expect: { comment: { body: 'First! (edited)' } },
  },
  {
    name: 'an admin may edit what someone else wrote',
    method: 'PATCH',
    path: (c) => `/v1/comments/${c.mine.id}`,
    token: (c) => c.tokens.admin.write,
    body: { body: 'x' },
    status: 200,
    expect: (c: C) => ({ comment: { body: 'x', author: { id: c.member.id } } }),
  },
  {
    name: 'a member cannot edit what someone else wrote',
    method: 'PATCH',
    path: (c) => `/v1/comments/${c.theirs.id}`,
    token: (c) => c.tokens.member.write,
    body: { body: 'x' },
    status: 403,
  },
  {
    name: 'a member of another board cannot see it to edit',
    method: 'PATCH',
    path: (c) => `/v1/comments/${c.mine.id}`,
    token: (c) => c.tokens.outsider.write,
    body: { body: 'x' },
    status: 404,
  },
  {
    name: 'a member of another board cannot read it',
    method: 'GET',
    path: (c) => `/v1/comments/${c.mine.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'a board member reads it, with the card expanded',
    method: 'GET',
    path: (c) => `/v1/comments/${c.mine.id}?expand=card`,
    token: (c) => c.tokens.admin.read,
    status: 200,
    expect: (c: C) => ({ comment: { id: c.mine.id, expand: { card: { id: c.card.id, key: c.card.key } } } }),
  },
  {
    name: 'a member cannot delete what someone else wrote',
    method: 'DELETE',
    path: (c) => `/v1/comments/${c.theirs.id}`,
    token: (c) => c.tokens.member.write,
    status: 403,
    events: [],
  },
  {
    name: 'the author deletes it',
    method: 'DELETE',
    path: (c) => `/v1/comments/${c.mine.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: ['comment.deleted'],
  },
  {
    name: 'an admin deletes any comment',
    method: 'DELETE',
    path: (c) => `/v1/comments/${c.mine.id}`,
    token: (c) => c.tokens.admin.write,
    status: 204,
    events: ['comment.deleted'],
  },
  {
    name: 'a member of another board cannot delete it',
    method: 'DELETE',
    path: (c) => `/v1/comments/${c.mine.id}`,
    token: (c) => c.tokens.outsider.write,
    status: 404,
    events: [],
  },
  { name: 'an unknown comment is 404', method: 'GET', path: '/v1/comments/nope', token: (c) => c.tokens.member.read, status: 404 },
])

test('a card deleted for good takes its comments along, each with comment.deleted; a trashed card keeps them', async () => {
  const c = await fixture()
  try {
    assert.equal((await c.t.req('DELETE', `/v1/cards/${c.card.id}`, { token: c.tokens.member.write })).status, 204)
    assert.equal((await c.t.req('GET', `/v1/comments?card=${c.card.id}`, { token: c.tokens.member.read })).body.totalItems, 2)
    assert.equal((await c.t.req('DELETE', `/v1/cards/${c.card.id}?permanent=true`, { token: c.tokens.member.write })).status, 204)
    const deleted = await dbAll<{ data: string }>(c.t.deps.db, "SELECT data FROM events WHERE name = 'comment.deleted'")
    assert.equal(deleted.length, 2)
    for (const e of deleted.map((r) => JSON.parse(r.data))) {
      assert.ok([c.mine.id, c.theirs.id].includes(e.id))
      assert.deepEqual(e.card, { id: c.card.id, key: c.card.key, title: 'Ship it', url: e.card.url })
      assert.deepEqual(e.board, { id: c.board.id, name: 'Launch' })
      assert.equal(e.actor.id, c.member.id)
    }
    assert.equal(Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM comments'))!.n), 0)
    assert.equal((await c.t.req('GET', `/v1/comments/${c.mine.id}`, { token: c.tokens.member.read })).status, 404)
  } finally {
    await c.t.close()
  }
})

test('lists: by card, across visible boards, with filter, sort and the page envelope', async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.member.write
    const card2 = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title: 'Two' } })).body.card
    for (const [card, body] of [
      [c.card.id, 'alpha note'],
      [card2.id, 'beta note'],
      [card2.id, 'gamma'],
    ]) {
      c.t.clock.advance(1000)
      assert.equal((await c.t.req('POST', '/v1/comments', { token: tok, body: { card, body } })).status, 201)
    }
    const hidden = (await c.t.req('POST', '/v1/cards', { token: c.tokens.outsider.write, body: { board: c.other.id, title: 'Hidden' } })).body.card
    await c.t.req('POST', '/v1/comments', { token: c.tokens.outsider.write, body: { card: hidden.id, body: 'secret note' } })

    const byCard = (await c.t.req('GET', `/v1/comments?card=${card2.id}`, { token: c.tokens.member.read })).body
    assert.deepEqual(
      byCard.items.map((x: { body: string }) => x.body),
      ['beta note', 'gamma'],
      'oldest first',
    )
    assert.deepEqual(
      { page: byCard.page, perPage: byCard.perPage, totalItems: byCard.totalItems, totalPages: byCard.totalPages },
      { page: 1, perPage: 30, totalItems: 2, totalPages: 1 },
    )
    const all = (await c.t.req('GET', '/v1/comments?filter=body~"note"&sort=-created', { token: c.tokens.member.read })).body
    assert.deepEqual(
      all.items.map((x: { body: string }) => x.body),
      ['beta note', 'alpha note'],
      "another board's comments stay out",
    )
    const viaCard = (await c.t.req('GET', `/v1/comments?filter=${encodeURIComponent('card.title = "Two" && body !~ "beta"')}`, { token: c.tokens.member.read }))
      .body
    assert.deepEqual(
      viaCard.items.map((x: { body: string }) => x.body),
      ['gamma'],
    )
    assert.equal((await c.t.req('GET', `/v1/comments?card=${hidden.id}`, { token: c.tokens.member.read })).body.totalItems, 0)
    assert.equal((await c.t.req('GET', '/v1/comments?sort=nope', { token: c.tokens.member.read })).status, 400)
    assert.equal((await c.t.req('GET', '/v1/comments?filter=nope=1', { token: c.tokens.member.read })).status, 400)
  } finally {
    await c.t.close()
  }
})

test('@mentions name members of the board by name or email handle; others are not mentioned', async () => {
  const c = await fixture()
  try {
    await c.t.req('PATCH', `/v1/users/${c.admin.id}`, { token: c.tokens.owner.full, body: { name: 'Ana Lima' } })
    await c.t.req('PATCH', `/v1/users/${c.outsider.id}`, { token: c.tokens.owner.full, body: { name: 'Olaf' } })
    const handle = c.member.email.split('@')[0]
    const body = `@ana lima, please check with @${handle}. Not @Olaf (not on the board), nor mail@ana.lima or @anabel.`
    const r = await c.t.req('POST', '/v1/comments', { token: c.tokens.owner.write, body: { card: c.card.id, body } })
    assert.equal(r.status, 201, r.text)
    assert.deepEqual(r.body.comment.mentions.map((m: { id: string }) => m.id).sort(), [c.admin.id, c.member.id].sort())
    // Two people with one name: both are named. An edit that adds a mention tells the newly mentioned only.
    await c.t.req('PATCH', `/v1/users/${c.member.id}`, { token: c.tokens.owner.full, body: { name: 'Bo' } })
    await c.t.req('PATCH', `/v1/users/${c.admin.id}`, { token: c.tokens.owner.full, body: { name: 'Bo' } })
    const both = await c.t.req('POST', '/v1/comments', { token: c.tokens.owner.write, body: { card: c.card.id, body: 'thanks @bo!' } })
    assert.equal(both.body.comment.mentions.length, 2)
    const plain = (await c.t.req('POST', '/v1/comments', { token: c.tokens.owner.write, body: { card: c.card.id, body: 'no one' } })).body.comment
    const inboxOf = async (token: string) =>
      (await c.t.req('GET', '/v1/inbox?filter=kind="mentioned"', { token })).body.items.map((i: { comment: string }) => i.comment)
    const before = await inboxOf(c.tokens.member.read)
    const edited = await c.t.req('PATCH', `/v1/comments/${plain.id}`, { token: c.tokens.owner.write, body: { body: `now @${handle}` } })
    assert.equal(edited.status, 200, edited.text)
    assert.deepEqual(
      edited.body.comment.mentions.map((m: { id: string }) => m.id),
      [c.member.id],
    )
    assert.deepEqual((await inboxOf(c.tokens.member.read)).sort(), [plain.id, ...before].sort())
    await c.t.req('PATCH', `/v1/comments/${plain.id}`, { token: c.tokens.owner.write, body: { body: `still @${handle}, edited` } })
    assert.equal((await inboxOf(c.tokens.member.read)).length, before.length + 1, 'an edit keeping a mention tells nobody again')
  } finally {
    await c.t.close()
  }
})

test('comment events reach a receiver with the task key, title and link', async () => {
  const c = await webhookApp()
  try {
    const sub = await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok`, events: ['comment.*'] })
    assert.ok(sub.webhook.id)
    const card = (await c.t.req('POST', '/v1/cards', { token: c.tokens.member.write, body: { board: c.board.id, title: 'Ship it' } })).body.card
    const comment = (await c.t.req('POST', '/v1/comments', { token: c.tokens.member.write, body: { card: card.id, body: 'hello @nobody' } })).body.comment
    assert.equal((await c.t.req('DELETE', `/v1/comments/${comment.id}`, { token: c.tokens.admin.write })).status, 204)
    while ((await c.scheduler.runOnce()) > 0);
    // Deliveries run side by side: their order of arrival is not the order of the events.
    const got = ['comment.added', 'comment.deleted'].map((e) => c.receiver.hits.find((h) => h.json.event === e)?.json)
    assert.equal(c.receiver.hits.length, 2)
    const link = { id: card.id, key: card.key, title: 'Ship it', url: `${publicBaseUrl(c.t.deps.config)}/v1/cards/${card.id}` }
    assert.deepEqual(got[0].data, {
      id: comment.id,
      body: 'hello @nobody',
      author: { id: c.member.id, name: comment.author.name, kind: 'human' },
      mentions: [],
      created: comment.created,
      card: link,
      board: { id: c.board.id, name: 'Launch' },
      actor: { id: c.member.id, name: comment.author.name },
    })
    assert.deepEqual(got[1].data.card, link)
    assert.equal(got[1].data.actor.id, c.admin.id)
  } finally {
    await c.close()
  }
})

test('an add_comment step comments as the endpoint, starts no event automation, and tells the watchers', async () => {
  const s = await seededApp({ allowPrivateTargets: 'true' })
  const runner = new AutomationRunner(s.t.deps, { log: () => {} })
  try {
    const tok = s.tokens.admin.write
    const card = (await s.t.req('POST', '/v1/cards', { token: tok, body: { board: s.board.id, title: 'Ticket', watchers: [s.member.id] } })).body.card
    const ep = (await s.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Support' } })).body.incoming_webhook
    const a = await s.t.req('POST', '/v1/automations', {
      token: tok,
      body: {
        name: 'note it',
        board: s.board.id,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: [{ type: 'add_comment', card: '{webhook.body.card}', body: 'From {webhook.body.who}' }],
      },
    })
    assert.equal(a.status, 201, a.text)
    const echo = await s.t.req('POST', '/v1/automations', {
      token: tok,
      body: {
        name: 'echo',
        board: s.board.id,
        trigger: { type: 'event', events: ['comment.added'] },
        steps: [{ type: 'add_comment', card: '{event.data.card.id}', body: 'again' }],
      },
    })
    assert.equal(echo.status, 201, echo.text)
    s.t.clock.advance(1000)
    const sent = await fetch(ep.url.replace('http://taskd.test', s.t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card: card.id, who: 'Ana' }),
    })
    assert.equal(sent.status, 202)
    assert.equal(await runner.runOnce(), 1)
    const run = (await s.t.req('GET', `/v1/automations/${a.body.automation.id}/runs`, { token: tok })).body.items[0]
    assert.equal(run.status, 'succeeded', JSON.stringify(run))
    const comments = (await s.t.req('GET', `/v1/comments?card=${card.id}`, { token: tok })).body.items
    assert.deepEqual(
      comments.map((x: { body: string; author: unknown }) => [x.body, x.author]),
      [['From Ana', { id: ep.id, name: 'Support', kind: 'incoming_webhook' }]],
    )
    assert.equal(run.steps[0].output.comment.id, comments[0].id)
    assert.equal(await runner.runOnce(), 0, 'the comment a run wrote starts no event automation')
    const inbox = (await s.t.req('GET', '/v1/inbox', { token: s.tokens.member.read })).body.items
    assert.deepEqual(
      inbox.map((i: { kind: string; actor: unknown }) => [i.kind, i.actor]),
      [
        ['commented', { id: ep.id, name: 'Support', kind: 'incoming_webhook' }],
        ['watching', { id: s.admin.id, name: inbox[1].actor.name, kind: 'human' }],
      ],
    )
  } finally {
    await runner.stop(1000)
    await s.t.close()
  }
})
