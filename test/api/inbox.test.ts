// The inbox through HTTP: what puts items in it (assignment, mentions, comments and completion on watched cards,
// becoming a watcher), reading and dismissing them, the unread count, and items that vanish with the board's sight.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'

async function fixture() {
  const s = await seededApp()
  const card = (await s.t.req('POST', '/v1/cards', { token: s.tokens.admin.write, body: { board: s.board.id, title: 'Ship it' } })).body.card
  const inbox = async (token: string, query = '') => (await s.t.req('GET', `/v1/inbox${query}`, { token })).body
  const kinds = async (token: string) => (await inbox(token)).items.map((i: { kind: string }) => i.kind)
  return { ...s, card, inbox, kinds }
}

test('assignment, watching, a mention, a comment and completion on a watched card reach the right inboxes, never the actor', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    const patch = async (body: unknown, token = tokens.admin.write) => {
      t.clock.advance(1000)
      const r = await t.req('PATCH', `/v1/cards/${c.card.id}`, { token, body })
      assert.equal(r.status, 200, r.text)
    }
    await patch({ assignees: [c.member.id, c.admin.id] })
    await patch({ watchers: [c.member.id] })
    await patch({ watchers: [c.member.id] }) // no change, no new item
    t.clock.advance(1000)
    const handle = c.admin.email.split('@')[0]
    const comment = (await t.req('POST', '/v1/comments', { token: tokens.owner.write, body: { card: c.card.id, body: `@${handle} have a look` } })).body.comment
    assert.deepEqual(
      comment.mentions.map((m: { id: string }) => m.id),
      [c.admin.id],
    )
    await patch({ completed: true }, tokens.owner.write)

    assert.deepEqual(await c.kinds(tokens.member.read), ['completed', 'commented', 'watching', 'assigned'], 'newest first')
    assert.deepEqual(await c.kinds(tokens.admin.read), ['mentioned'], 'the admin assigned themselves: no item for that')
    assert.deepEqual(await c.kinds(tokens.owner.read), [], 'the commenter is not told about their own comment')

    const items = (await c.inbox(tokens.member.read)).items
    const commented = items.find((i: { kind: string }) => i.kind === 'commented')
    assert.equal(commented.comment, comment.id)
    assert.deepEqual(commented.card, { id: c.card.id, key: c.card.key, title: 'Ship it', url: commented.card.url })
    assert.match(commented.card.url, new RegExp(`/v1/cards/${c.card.id}$`))
    assert.deepEqual(commented.board, { id: c.board.id, name: 'Launch' })
    assert.equal(commented.actor.id, c.owner.id)
    assert.equal(commented.read, false)
  } finally {
    await c.t.close()
  }
})

test('read one, unread again, read all, dismiss; the count follows; nobody reaches another user’s items', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    await t.req('PATCH', `/v1/cards/${c.card.id}`, { token: tokens.admin.write, body: { assignees: [c.member.id], watchers: [c.member.id] } })
    const unread = async () => (await t.req('GET', '/v1/inbox/unread', { token: tokens.member.read })).body.unread
    assert.equal(await unread(), 2)
    const [first, second] = (await c.inbox(tokens.member.read)).items
    t.clock.advance(5000)
    const read = await t.req('PATCH', `/v1/inbox/${first.id}`, { token: tokens.member.write, body: { read: true } })
    assert.equal(read.status, 200, read.text)
    assert.equal(read.body.inbox_item.read, true)
    assert.equal(read.body.inbox_item.read_at, new Date(t.clock.now()).toISOString())
    assert.equal(await unread(), 1)
    assert.deepEqual(
      (await c.inbox(tokens.member.read, '?unread=true')).items.map((i: { id: string }) => i.id),
      [second.id],
    )
    assert.equal((await t.req('PATCH', `/v1/inbox/${first.id}`, { token: tokens.member.write, body: { read: false } })).body.inbox_item.read, false)
    assert.equal(await unread(), 2)
    assert.equal((await t.req('PATCH', `/v1/inbox/${first.id}`, { token: tokens.member.read, body: { read: true } })).status, 403, 'a read-only token')
    assert.equal((await t.req('PATCH', `/v1/inbox/${first.id}`, { token: tokens.member.write, body: { read: 'yes' } })).status, 422)
    for (const token of [tokens.admin.write, tokens.owner.write]) {
      assert.equal((await t.req('GET', `/v1/inbox/${first.id}`, { token })).status, 404, 'not even owners read another inbox')
      assert.equal((await t.req('PATCH', `/v1/inbox/${first.id}`, { token, body: { read: true } })).status, 404)
      assert.equal((await t.req('DELETE', `/v1/inbox/${first.id}`, { token })).status, 404)
    }
    assert.deepEqual((await t.req('POST', '/v1/inbox/read-all', { token: tokens.member.write })).body, { updated: 2 })
    assert.equal(await unread(), 0)
    assert.equal((await t.req('DELETE', `/v1/inbox/${first.id}`, { token: tokens.member.write })).status, 204)
    assert.equal((await t.req('GET', `/v1/inbox/${first.id}`, { token: tokens.member.read })).status, 404)
    assert.equal((await c.inbox(tokens.member.read)).totalItems, 1)
    assert.equal((await t.req('GET', `/v1/inbox?filter=kind="${second.kind}"`, { token: tokens.member.read })).body.totalItems, 1)
    assert.equal((await t.req('GET', `/v1/inbox?filter=kind="${first.kind}"`, { token: tokens.member.read })).body.totalItems, 0)
    assert.equal((await t.req('GET', '/v1/inbox?filter=kind="nope"', { token: tokens.member.read })).status, 400)
    const expanded = (await t.req('GET', '/v1/inbox?expand=card&sort=kind', { token: tokens.member.read })).body.items[0]
    assert.equal(expanded.expand.card.id, c.card.id)
    assert.equal(expanded.expand.card.title, 'Ship it')
  } finally {
    await c.t.close()
  }
})

test('items vanish when the user leaves the board, and come back if they return; a deleted card takes its items', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    await t.req('PATCH', `/v1/cards/${c.card.id}`, { token: tokens.admin.write, body: { assignees: [c.member.id] } })
    assert.equal((await c.inbox(tokens.member.read)).totalItems, 1)
    const [item] = (await c.inbox(tokens.member.read)).items
    assert.equal((await t.req('DELETE', `/v1/boards/${c.board.id}/members/${c.member.id}`, { token: tokens.owner.write })).status, 204)
    assert.equal((await c.inbox(tokens.member.read)).totalItems, 0)
    assert.equal((await t.req('GET', '/v1/inbox/unread', { token: tokens.member.read })).body.unread, 0)
    assert.equal((await t.req('GET', `/v1/inbox/${item.id}`, { token: tokens.member.read })).status, 404)
    assert.deepEqual((await t.req('POST', '/v1/inbox/read-all', { token: tokens.member.write })).body, { updated: 0 })
    await t.req('POST', `/v1/boards/${c.board.id}/members`, { token: tokens.owner.write, body: { user: c.member.id } })
    assert.equal((await c.inbox(tokens.member.read)).totalItems, 1)
    assert.equal((await t.req('DELETE', `/v1/cards/${c.card.id}?permanent=true`, { token: tokens.admin.write })).status, 204)
    assert.equal((await c.inbox(tokens.member.read)).totalItems, 0)
    assert.equal((await t.req('GET', `/v1/inbox/${item.id}`, { token: tokens.member.read })).status, 404)
  } finally {
    await c.t.close()
  }
})

test('watchers must be members of the board; a user who cannot see the board is never told', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    const r = await t.req('PATCH', `/v1/cards/${c.card.id}`, { token: tokens.admin.write, body: { watchers: [c.outsider.id] } })
    assert.equal(r.status, 422)
    assert.equal(r.body.error.details[0].path, 'watchers')
    const created = await t.req('POST', '/v1/cards', { token: tokens.admin.write, body: { board: c.board.id, title: 'x', watchers: [c.outsider.id] } })
    assert.equal(created.status, 422)
    // Assigning someone who is not on the board is allowed (as before), but their inbox shows nothing they cannot open.
    await t.req('PATCH', `/v1/cards/${c.card.id}`, { token: tokens.admin.write, body: { assignees: [c.outsider.id] } })
    assert.equal((await c.inbox(tokens.outsider.read)).totalItems, 0)
    // Not hidden but never written: once on the board, they still have nothing from before.
    await t.req('POST', `/v1/boards/${c.board.id}/members`, { token: tokens.owner.write, body: { user: c.outsider.id } })
    assert.equal((await c.inbox(tokens.outsider.read)).totalItems, 0)
    // A watcher who left the board does not block later edits of the card, and one who is still there can be kept.
    await t.req('PATCH', `/v1/cards/${c.card.id}`, { token: tokens.admin.write, body: { watchers: [c.member.id, c.outsider.id] } })
    await t.req('DELETE', `/v1/boards/${c.board.id}/members/${c.outsider.id}`, { token: tokens.owner.write })
    const card = (await t.req('GET', `/v1/cards/${c.card.id}`, { token: tokens.admin.read })).body.card
    const again = await t.req('PATCH', `/v1/cards/${c.card.id}`, { token: tokens.admin.write, body: { watchers: [...card.watchers, c.admin.id] } })
    assert.equal(again.status, 200, again.text)
    // Moved to a board they are not on, a card's watchers who are not members there stop watching.
    const other = (await t.req('POST', '/v1/boards', { token: tokens.admin.write, body: { name: 'Elsewhere', key_prefix: 'ELS' } })).body
    const moved = await t.req('POST', `/v1/cards/${c.card.id}/move`, { token: tokens.admin.write, body: { board: other.board.id, list: other.lists[0].id } })
    assert.equal(moved.status, 200, moved.text)
    assert.deepEqual(moved.body.card.watchers, [c.admin.id])
  } finally {
    await c.t.close()
  }
})
