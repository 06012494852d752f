// Milestones through HTTP: create/read/update/delete with the board's rights, validation, the list's filter, sort and
// expand, progress over the milestone's cards, the card's `milestone` (create, PATCH, bulk, filters) with its
// card.updated events, closing that changes no card, a deletion taking the milestone off its cards, and MCP tools.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { seededApp } from '../helpers/app.js'
import { dbAll } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  const other = (await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })).body.board
  const made = await t.req('POST', '/v1/milestones', {
    token: tokens.member.write,
    body: { board: s.board.id, name: 'Beta', description: 'For testers', due_date: '2026-12-15' },
  })
  assert.equal(made.status, 201, made.text)
  const theirs = (await t.req('POST', '/v1/milestones', { token: tokens.outsider.write, body: { board: other.id, name: 'Theirs' } })).body.milestone
  return { ...s, other, beta: made.body.milestone, theirs }
}
type C = Awaited<ReturnType<typeof fixture>>

const post = (c: C, url: string, body: unknown, token = c.tokens.member.write) => c.t.req('POST', url, { token, body })
const patch = (c: C, url: string, body: unknown, token = c.tokens.member.write) => c.t.req('PATCH', url, { token, body })
const get = (c: C, url: string, token = c.tokens.member.read) => c.t.req('GET', url, { token })
const changesOf = async (c: C, cardId: string) =>
  (await dbAll<{ data: string }>(c.t.deps.db, "SELECT data FROM events WHERE name = 'card.updated' ORDER BY seq"))
    .map((e) => JSON.parse(e.data))
    .filter((d) => d.id === cardId)
    .map((d) => d.changes)

runScenarios<C>('milestones', fixture, [
  {
    name: 'a member creates a milestone, open, with no cards yet, and its event',
    method: 'POST',
    path: '/v1/milestones',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ board: c.board.id, name: 'GA', due_date: '2027-01-31T12:00:00+01:00' }),
    status: 201,
    events: ['milestone.created'],
    expect: (c: C) => ({
      milestone: { board: c.board.id, name: 'GA', description: '', due_date: '2027-01-31T11:00:00.000Z', state: 'open', progress: { done: 0, total: 0 } },
    }),
  },
  {
    name: 'a missing name is named',
    method: 'POST',
    path: '/v1/milestones',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ board: c.board.id }),
    status: 422,
    field: 'name',
  },
  {
    name: 'an unknown state is named',
    method: 'POST',
    path: '/v1/milestones',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ board: c.board.id, name: 'x', state: 'done' }),
    status: 422,
    field: 'state',
  },
  {
    name: 'a due date that is no date is named',
    method: 'PATCH',
    path: (c) => `/v1/milestones/${c.beta.id}`,
    token: (c) => c.tokens.member.write,
    body: { due_date: '31/12/2026' },
    status: 422,
    field: 'due_date',
  },
  {
    name: 'an unknown field is named',
    method: 'PATCH',
    path: (c) => `/v1/milestones/${c.beta.id}`,
    token: (c) => c.tokens.member.write,
    body: { board: 'x' },
    status: 422,
    field: 'board',
  },
  {
    name: 'a read-only token cannot create one',
    method: 'POST',
    path: '/v1/milestones',
    token: (c) => c.tokens.member.read,
    body: (c: C) => ({ board: c.board.id, name: 'x' }),
    status: 403,
  },
  {
    name: 'a read-only token cannot close one',
    method: 'PATCH',
    path: (c) => `/v1/milestones/${c.beta.id}`,
    token: (c) => c.tokens.owner.read,
    body: { state: 'closed' },
    status: 403,
    events: [],
  },
  {
    name: 'a read-only token cannot delete one',
    method: 'DELETE',
    path: (c) => `/v1/milestones/${c.beta.id}`,
    token: (c) => c.tokens.member.read,
    status: 403,
  },
  {
    name: 'a member of another board cannot create one on this board: 404',
    method: 'POST',
    path: '/v1/milestones',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => ({ board: c.board.id, name: 'x' }),
    status: 404,
  },
  {
    name: 'a member of another board cannot read one: 404',
    method: 'GET',
    path: (c) => `/v1/milestones/${c.beta.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'a member of another board cannot change one: 404',
    method: 'PATCH',
    path: (c) => `/v1/milestones/${c.beta.id}`,
    token: (c) => c.tokens.outsider.write,
    body: { state: 'closed' },
    status: 404,
  },
  {
    name: 'a member of another board cannot delete one: 404',
    method: 'DELETE',
    path: (c) => `/v1/milestones/${c.beta.id}`,
    token: (c) => c.tokens.outsider.write,
    status: 404,
  },
  {
    name: 'an admin (who sees every board) reads it',
    method: 'GET',
    path: (c) => `/v1/milestones/${c.theirs.id}`,
    token: (c) => c.tokens.admin.read,
    status: 200,
    expect: (c: C) => ({ milestone: { id: c.theirs.id, board: c.other.id } }),
  },
  {
    name: 'a member lists the milestones of their boards only, with filter, sort and expand',
    method: 'GET',
    path: `/v1/milestones?filter=${encodeURIComponent('state = "open" && name ~ "bet"')}&sort=-due_date&expand=board`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.beta.id, expand: { board: { id: c.board.id, name: 'Launch' } } }] }),
  },
  {
    name: 'an unknown expand relation is a 400',
    method: 'GET',
    path: '/v1/milestones?expand=cards',
    token: (c) => c.tokens.member.read,
    status: 400,
  },
  {
    name: 'closing a milestone emits milestone.updated and changes no card',
    method: 'PATCH',
    path: (c) => `/v1/milestones/${c.beta.id}`,
    token: (c) => c.tokens.member.write,
    body: { state: 'closed', due_date: null },
    status: 200,
    events: ['milestone.updated'],
    expect: { milestone: { state: 'closed', due_date: null } },
  },
  {
    name: 'a milestone without cards is deleted with its event',
    method: 'DELETE',
    path: (c) => `/v1/milestones/${c.beta.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: ['milestone.deleted'],
  },
])

test('cards carry their milestone: create, PATCH, bulk, filters, progress, card.updated naming milestone', async () => {
  const c = await fixture()
  try {
    const a = await post(c, '/v1/cards', { board: c.board.id, title: 'a', milestone: c.beta.id })
    assert.equal(a.status, 201, a.text)
    assert.equal(a.body.card.milestone, c.beta.id)
    const b = (await post(c, '/v1/cards', { board: c.board.id, title: 'b' })).body.card
    assert.equal(b.milestone, null)
    const patched = await patch(c, `/v1/cards/${b.id}`, { milestone: c.beta.id })
    assert.equal(patched.body.card.milestone, c.beta.id)
    assert.deepEqual(await changesOf(c, b.id), [['milestone']])
    // The same milestone again changes nothing and emits nothing.
    await patch(c, `/v1/cards/${b.id}`, { milestone: c.beta.id })
    assert.deepEqual(await changesOf(c, b.id), [['milestone']])

    // Another board's milestone is named in the 422, on create, PATCH and bulk.
    for (const reply of [
      await post(c, '/v1/cards', { board: c.board.id, title: 'x', milestone: c.theirs.id }),
      await patch(c, `/v1/cards/${b.id}`, { milestone: c.theirs.id }),
      await patch(c, `/v1/cards/${b.id}`, { milestone: 'nope' }),
    ]) {
      assert.equal(reply.status, 422, reply.text)
      assert.equal(reply.body.error.details[0].path, 'milestone')
    }
    const d = (await post(c, '/v1/cards', { board: c.board.id, title: 'd', completed: true })).body.card
    const bulk = await post(c, '/v1/actions/bulk-update-cards', { cards: [d.id], set: { milestone: c.beta.id } })
    assert.deepEqual(bulk.body, { updated: 1, failed: [] })
    assert.deepEqual(await changesOf(c, d.id), [['milestone']])
    const bad = await post(c, '/v1/actions/bulk-update-cards', { cards: [d.id], set: { milestone: c.theirs.id } })
    assert.equal(bad.body.failed[0].error.code, 'validation_failed')

    // Progress: completed over all, trashed cards left out.
    const e = (await post(c, '/v1/cards', { board: c.board.id, title: 'e', milestone: c.beta.id })).body.card
    await c.t.req('DELETE', `/v1/cards/${e.id}`, { token: c.tokens.member.write })
    assert.deepEqual((await get(c, `/v1/milestones/${c.beta.id}`)).body.milestone.progress, { done: 1, total: 3 })
    assert.deepEqual((await get(c, `/v1/milestones?board=${c.board.id}`)).body.items[0].progress, { done: 1, total: 3 })

    const titles = async (filter: string) =>
      (await get(c, `/v1/cards?filter=${encodeURIComponent(filter)}`)).body.items
        .map((i: any) => i.title)
        .sort()
        .join(',')
    assert.equal(await titles(`milestone = "${c.beta.id}"`), 'a,b,d')
    assert.equal(await titles('milestone.name = "Beta"'), 'a,b,d')
    assert.equal(await titles('milestone = null'), '')
    assert.equal(await titles('milestone.state = "open" && completed = false'), 'a,b')

    // Closing changes no card; null takes a card off.
    await patch(c, `/v1/milestones/${c.beta.id}`, { state: 'closed' })
    assert.equal((await get(c, `/v1/cards/${a.body.card.id}`)).body.card.milestone, c.beta.id)
    assert.equal((await patch(c, `/v1/cards/${a.body.card.id}`, { milestone: null })).body.card.milestone, null)
    assert.deepEqual(await changesOf(c, a.body.card.id), [['milestone']])

    // A card moved to another board leaves its milestone behind.
    const moved = await c.t.req('POST', `/v1/cards/${b.id}/move`, {
      token: c.tokens.admin.write,
      body: { board: c.other.id, list: (await get(c, `/v1/lists?board=${c.other.id}`, c.tokens.admin.read)).body.items[0].id },
    })
    assert.equal(moved.status, 200, moved.text)
    assert.equal(moved.body.card.milestone, null)
    assert.ok((await changesOf(c, b.id)).at(-1).includes('milestone'))
  } finally {
    await c.t.close()
  }
})

test('deleting a milestone takes it off its cards, each with card.updated naming milestone', async () => {
  const c = await fixture()
  try {
    const ids: string[] = []
    for (const title of ['a', 'b', 'c']) ids.push((await post(c, '/v1/cards', { board: c.board.id, title, milestone: c.beta.id })).body.card.id)
    const deleted = await c.t.req('DELETE', `/v1/milestones/${c.beta.id}`, { token: c.tokens.member.write })
    assert.equal(deleted.status, 204, deleted.text)
    for (const id of ids) {
      assert.equal((await get(c, `/v1/cards/${id}`)).body.card.milestone, null)
      assert.deepEqual(await changesOf(c, id), [['milestone']])
    }
    assert.equal((await get(c, `/v1/milestones/${c.beta.id}`)).status, 404)
    const last = await dbAll<{ name: string }>(c.t.deps.db, 'SELECT name FROM events ORDER BY seq DESC LIMIT 1')
    assert.equal(last[0].name, 'milestone.deleted')
  } finally {
    await c.t.close()
  }
})

test('MCP: list, create and update milestones as the caller', async () => {
  const c = await fixture()
  const clients: Client[] = []
  const connect = async (token: string) => {
    const client = new Client({ name: 'taskd-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${c.t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
    clients.push(client)
    return (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<{ isError?: boolean; structuredContent?: any }>
  }
  try {
    const writer = await connect(c.tokens.member.write)
    const made = await writer('create_milestone', { board: c.board.id, name: 'RC' })
    assert.ok(!made.isError, JSON.stringify(made))
    const rc = made.structuredContent.milestone
    const closed = await writer('update_milestone', { id: rc.id, state: 'closed' })
    assert.equal(closed.structuredContent.milestone.state, 'closed')
    const reader = await connect(c.tokens.member.read)
    const listed = await reader('list_milestones', { board: c.board.id, filter: 'state = "closed"' })
    assert.deepEqual(
      listed.structuredContent.items.map((m: any) => m.name),
      ['RC'],
    )
    assert.equal((await reader('create_milestone', { board: c.board.id, name: 'x' })).isError, true)
    assert.equal((await (await connect(c.tokens.outsider.write))('update_milestone', { id: rc.id, name: 'x' })).isError, true)
  } finally {
    for (const client of clients) await client.close()
    await c.t.close()
  }
})
