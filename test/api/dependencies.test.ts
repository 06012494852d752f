// Dependencies through HTTP: making a card wait for another (also across boards), the permission matrix, duplicates,
// self-dependencies and cycles refused with the cycle's keys (also two requests closing one at once), the list of a
// card's dependencies both ways, the cards' blocked_by_open, filter `blocked` and expand=dependencies, completing a
// blocked card, and a card deleted for good taking its dependencies along.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { seededApp } from '../helpers/app.js'
import { dbAll } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  const card = async (title: string, board = s.board.id, token = tokens.member.write) => {
    const r = await t.req('POST', '/v1/cards', { token, body: { board, title } })
    assert.equal(r.status, 201, r.text)
    return r.body.card as { id: string; key: string }
  }
  const dep = async (blocker: string, blocked: string) => {
    const r = await t.req('POST', '/v1/dependencies', { token: tokens.member.write, body: { blocker, blocked } })
    assert.equal(r.status, 201, r.text)
    return r.body.dependency as { id: string }
  }
  // LCH-1 blocks LCH-2, which blocks LCH-3; LCH-4 stands alone.
  const a = await card('Design')
  const b = await card('Build')
  const c = await card('Ship')
  const d = await card('Party')
  const ab = await dep(a.id, b.id)
  const bc = await dep(b.id, c.id)
  // The member's second board, and a board the member does not see.
  const second = (await t.req('POST', '/v1/boards', { token: tokens.member.write, body: { name: 'Second', key_prefix: 'SEC' } })).body.board
  const there = await card('Over there', second.id)
  const other = (await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })).body.board
  const elsewhere = await card('Theirs', other.id, tokens.outsider.write)
  return { ...s, a, b, c, d, ab, bc, there, elsewhere, card }
}
type C = Awaited<ReturnType<typeof fixture>>

const post = (body: (c: C) => object) => ({ method: 'POST', path: '/v1/dependencies', body })
const cardOf = async (c: C, id: string, expand = '') =>
  (await c.t.req('GET', `/v1/cards/${id}${expand ? `?expand=${expand}` : ''}`, { token: c.tokens.member.read })).body.card

runScenarios<C>('dependencies', fixture, [
  {
    name: 'a member makes a card wait for another; dependency.created is emitted',
    ...post((c) => ({ blocker: c.d.id, blocked: c.a.id })),
    token: (c) => c.tokens.member.write,
    status: 201,
    events: ['dependency.created'],
    expect: (c: C) => ({ dependency: { blocker: c.d.id, blocked: c.a.id, created_by: { id: c.member.id }, created: '2026-11-21T12:00:00.000Z' } }),
    after: async (c) => assert.equal((await cardOf(c, c.a.id)).blocked_by_open, 1),
  },
  {
    name: 'the cards may be on different boards',
    ...post((c) => ({ blocker: c.c.id, blocked: c.there.id })),
    token: (c) => c.tokens.member.write,
    status: 201,
    expect: (c: C) => ({ dependency: { blocker: c.c.id, blocked: c.there.id } }),
  },
  {
    name: 'a card cannot block itself: 422',
    ...post((c) => ({ blocker: c.d.id, blocked: c.d.id })),
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'blocked',
    events: [],
  },
  {
    name: 'the same pair twice is a 409',
    ...post((c) => ({ blocker: c.a.id, blocked: c.b.id })),
    token: (c) => c.tokens.member.write,
    status: 409,
    events: [],
  },
  {
    name: 'two cards blocking each other is a cycle: 422 naming it by keys',
    ...post((c) => ({ blocker: c.b.id, blocked: c.a.id })),
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'blocked',
    events: [],
    after: (_c, r) => assert.match(r.body.error.message, /LCH-2 → LCH-1 → LCH-2/),
  },
  {
    name: 'a cycle through three cards: 422 naming all three',
    ...post((c) => ({ blocker: c.c.id, blocked: c.a.id })),
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'blocked',
    after: (_c, r) => assert.match(r.body.error.message, /LCH-3 → LCH-1 → LCH-2 → LCH-3/),
  },
  { name: 'a missing blocked card is named', ...post((c) => ({ blocker: c.a.id })), token: (c) => c.tokens.member.write, status: 422, field: 'blocked' },
  {
    name: 'an unknown field is named',
    ...post((c) => ({ blocker: c.a.id, blocked: c.d.id, kind: 'x' })),
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'kind',
  },
  { name: 'an unknown card is 404', ...post((c) => ({ blocker: c.a.id, blocked: 'nope' })), token: (c) => c.tokens.member.write, status: 404 },
  {
    name: 'a card on a board the caller does not see is 404, either side',
    ...post((c) => ({ blocker: c.elsewhere.id, blocked: c.d.id })),
    token: (c) => c.tokens.member.write,
    status: 404,
    events: [],
  },
  {
    name: 'a read-only token cannot make one: 403',
    ...post((c) => ({ blocker: c.d.id, blocked: c.a.id })),
    token: (c) => c.tokens.member.read,
    status: 403,
  },
  {
    name: 'a read-only token cannot remove one: 403',
    method: 'DELETE',
    path: (c) => `/v1/dependencies/${c.ab.id}`,
    token: (c) => c.tokens.owner.read,
    status: 403,
  },
  {
    name: 'a member of another board cannot read one: 404',
    method: 'GET',
    path: (c) => `/v1/dependencies/${c.ab.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'a member of another board cannot remove one: 404',
    method: 'DELETE',
    path: (c) => `/v1/dependencies/${c.ab.id}`,
    token: (c) => c.tokens.outsider.write,
    status: 404,
    events: [],
  },
  {
    name: 'a member of another board cannot list a card’s: 404',
    method: 'GET',
    path: (c) => `/v1/dependencies?card=${c.b.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'a member of another board lists none',
    method: 'GET',
    path: '/v1/dependencies',
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: { totalItems: 0, items: [] },
  },
  {
    name: 'an admin reads one with its cards expanded',
    method: 'GET',
    path: (c) => `/v1/dependencies/${c.ab.id}?expand=cards`,
    token: (c) => c.tokens.admin.read,
    status: 200,
    expect: (c: C) => ({
      dependency: {
        id: c.ab.id,
        blocker: c.a.id,
        blocked: c.b.id,
        expand: { blocker: { id: c.a.id, key: 'LCH-1', title: 'Design', completed: false }, blocked: { key: 'LCH-2' } },
      },
    }),
  },
  {
    name: 'a card’s dependencies, both ways, in the page envelope',
    method: 'GET',
    path: (c) => `/v1/dependencies?card=${c.b.id}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ page: 1, perPage: 30, totalItems: 2, totalPages: 1, items: [{ id: c.ab.id }, { id: c.bc.id }] }),
  },
  {
    name: 'filter, sort and paging',
    method: 'GET',
    path: `/v1/dependencies?filter=${encodeURIComponent('blocker.title ~ "build"')}&sort=-created&per_page=1`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.bc.id }] }),
  },
  { name: 'an unknown sort field is a 400', method: 'GET', path: '/v1/dependencies?sort=title', token: (c) => c.tokens.member.read, status: 400 },
  { name: 'an unknown expand is a 400', method: 'GET', path: '/v1/dependencies?expand=board', token: (c) => c.tokens.member.read, status: 400 },
  {
    name: 'removing one emits dependency.deleted and unblocks the card',
    method: 'DELETE',
    path: (c) => `/v1/dependencies/${c.ab.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: ['dependency.deleted'],
    after: async (c) => {
      assert.equal((await cardOf(c, c.b.id)).blocked_by_open, 0)
      assert.equal((await c.t.req('GET', `/v1/dependencies/${c.ab.id}`, { token: c.tokens.member.read })).status, 404)
    },
  },
  {
    name: 'a blocked card can be completed',
    method: 'POST',
    path: (c) => `/v1/cards/${c.c.id}/complete`,
    token: (c) => c.tokens.member.write,
    body: { completed: true },
    status: 200,
    expect: { card: { completed: true, blocked_by_open: 1 } },
  },
  {
    name: 'a card deleted for good takes its dependencies along, each announced',
    method: 'DELETE',
    path: (c) => `/v1/cards/${c.b.id}?permanent=true`,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: ['dependency.deleted', 'dependency.deleted', 'card.deleted'],
    after: async (c) => {
      assert.deepEqual(await dbAll(c.t.deps.db, 'SELECT id FROM card_dependencies'), [])
      assert.equal((await cardOf(c, c.c.id)).blocked_by_open, 0)
    },
  },
])

test('blocked_by_open counts the open blockers; filter blocked; expand=dependencies shows both ways, batched for the page', async () => {
  const c = await fixture()
  try {
    const list = async (query: string) => (await c.t.req('GET', `/v1/cards?board=${c.board.id}&${query}`, { token: c.tokens.member.read })).body
    assert.deepEqual(
      (await list('sort=key')).items.map((x: { key: string; blocked_by_open: number }) => [x.key, x.blocked_by_open]),
      [
        ['LCH-1', 0],
        ['LCH-2', 1],
        ['LCH-3', 1],
        ['LCH-4', 0],
      ],
    )
    const blocked = async () => (await list(`sort=key&filter=${encodeURIComponent('blocked = true')}`)).items.map((x: { key: string }) => x.key)
    assert.deepEqual(await blocked(), ['LCH-2', 'LCH-3'])
    assert.deepEqual(
      (await list(`sort=key&filter=${encodeURIComponent('blocked = false && completed = false')}`)).items.map((x: { key: string }) => x.key),
      ['LCH-1', 'LCH-4'],
    )
    // Completing a blocker unblocks what waits for it only.
    assert.equal((await c.t.req('POST', `/v1/cards/${c.a.id}/complete`, { token: c.tokens.member.write, body: { completed: true } })).status, 200)
    assert.deepEqual(await blocked(), ['LCH-3'])
    const page = await list('sort=key&expand=dependencies')
    const brief = (x: { key: string; title: string; completed: boolean }) => ({ key: x.key, title: x.title, completed: x.completed })
    assert.deepEqual(page.items[1].expand.dependencies.blocked_by.map(brief), [{ key: 'LCH-1', title: 'Design', completed: true }])
    assert.deepEqual(page.items[1].expand.dependencies.blocking.map(brief), [{ key: 'LCH-3', title: 'Ship', completed: false }])
    assert.deepEqual(page.items[3].expand.dependencies, { blocked_by: [], blocking: [] })
    // A blocker on a board the viewer does not see counts, but is not shown.
    const hidden = await c.card(
      'Hidden',
      (await c.t.req('POST', '/v1/boards', { token: c.tokens.admin.write, body: { name: 'Admins' } })).body.board.id,
      c.tokens.admin.write,
    )
    assert.equal((await c.t.req('POST', '/v1/dependencies', { token: c.tokens.admin.write, body: { blocker: hidden.id, blocked: c.d.id } })).status, 201)
    const d = await cardOf(c, c.d.id, 'dependencies')
    assert.equal(d.blocked_by_open, 1)
    assert.deepEqual(d.expand.dependencies, { blocked_by: [], blocking: [] })
  } finally {
    await c.t.close()
  }
})

test('two requests closing a cycle at once: exactly one wins, every round', async () => {
  const c = await fixture()
  try {
    for (let round = 0; round < 12; round++) {
      const x = await c.card(`x${round}`)
      const y = await c.card(`y${round}`)
      const z = await c.card(`z${round}`)
      // x → y exists; y → z and z → x at once would close x → y → z → x: one of them must lose.
      assert.equal((await c.t.req('POST', '/v1/dependencies', { token: c.tokens.member.write, body: { blocker: x.id, blocked: y.id } })).status, 201)
      const replies = await Promise.all([
        c.t.req('POST', '/v1/dependencies', { token: c.tokens.member.write, body: { blocker: y.id, blocked: z.id } }),
        c.t.req('POST', '/v1/dependencies', { token: c.tokens.admin.write, body: { blocker: z.id, blocked: x.id } }),
      ])
      assert.deepEqual(replies.map((r) => r.status).sort(), [201, 422], replies.map((r) => r.text).join('\n'))
      // And the two-card form: x ← y and y ← x at once.
      const u = await c.card(`u${round}`)
      const v = await c.card(`v${round}`)
      const pair = await Promise.all([
        c.t.req('POST', '/v1/dependencies', { token: c.tokens.member.write, body: { blocker: u.id, blocked: v.id } }),
        c.t.req('POST', '/v1/dependencies', { token: c.tokens.admin.write, body: { blocker: v.id, blocked: u.id } }),
      ])
      assert.deepEqual(pair.map((r) => r.status).sort(), [201, 422], pair.map((r) => r.text).join('\n'))
    }
  } finally {
    await c.t.close()
  }
})

test('MCP: add, list and remove a dependency', async () => {
  const c = await fixture()
  const client = new Client({ name: 'taskd-test', version: '1.0.0' })
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${c.t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${c.tokens.member.write}` } } }),
    )
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent?: any }
      assert.ok(!r.isError, `${name}: ${r.content[0].text}`)
      return r.structuredContent
    }
    const made = await call('add_dependency', { blocker: c.d.id, blocked: c.c.id })
    assert.equal(made.dependency.blocked, c.c.id)
    const listed = await call('list_dependencies', { card: c.c.id })
    assert.deepEqual(
      listed.items.map((i: { expand: { blocker: { key: string } } }) => i.expand.blocker.key),
      ['LCH-2', 'LCH-4'],
    )
    await call('remove_dependency', { id: made.dependency.id })
    assert.equal((await cardOf(c, c.c.id)).blocked_by_open, 1)
    const cycle = (await client.callTool({ name: 'add_dependency', arguments: { blocker: c.c.id, blocked: c.a.id } })) as {
      isError?: boolean
      content: { text: string }[]
    }
    assert.equal(cycle.isError, true)
    assert.match(cycle.content[0].text, /LCH-3 → LCH-1 → LCH-2 → LCH-3/)
  } finally {
    await client.close()
    await c.t.close()
  }
})
