// Boards, members, lists, tags and users through HTTP.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbAll, dbRunMany } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'

type Fixture = Awaited<ReturnType<typeof seededApp>>

runScenarios('boards', seededApp, [
  {
    name: 'create with default lists',
    method: 'POST',
    path: '/v1/boards',
    token: (c) => c.tokens.member.write,
    body: { name: 'Marketing site' },
    status: 201,
    expect: {
      board: { name: 'Marketing site', key_prefix: 'MAR', description: '' },
      lists: [
        { name: 'To do', category: 'unstarted' },
        { name: 'In progress', category: 'started' },
        { name: 'Done', category: 'completed' },
      ],
    },
  },
  {
    name: 'create with named lists',
    method: 'POST',
    path: '/v1/boards',
    token: (c) => c.tokens.member.write,
    body: { name: 'B', key_prefix: 'BB', lists: ['One', 'Two'] },
    status: 201,
    expect: { board: { key_prefix: 'BB' }, lists: [{ name: 'One' }, { name: 'Two' }] },
  },
  {
    name: 'bad key prefix',
    method: 'POST',
    path: '/v1/boards',
    token: (c) => c.tokens.member.write,
    body: { name: 'B', key_prefix: 'b-1' },
    status: 422,
    field: 'key_prefix',
  },
  { name: 'empty name', method: 'POST', path: '/v1/boards', token: (c) => c.tokens.member.write, body: { name: '  ' }, status: 422, field: 'name' },
  {
    name: 'list shows only visible boards',
    method: 'GET',
    path: '/v1/boards',
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: { page: 1, perPage: 30, totalItems: 0, totalPages: 0, items: [] },
  },
  {
    name: 'list for a member',
    method: 'GET',
    path: '/v1/boards?expand=lists,members',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: Fixture) => ({
      totalItems: 1,
      items: [{ id: c.board.id, expand: { lists: [{}, {}, {}], members: [{ board_role: 'member' }, { board_role: 'member' }, { board_role: 'admin' }] } }],
    }),
  },
  {
    name: 'unknown expand',
    method: 'GET',
    path: '/v1/boards?expand=cards',
    token: (c) => c.tokens.member.read,
    status: 400,
    expect: { error: { code: 'bad_request' } },
  },
  {
    name: 'get',
    method: 'GET',
    path: (c) => `/v1/boards/${c.board.id}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: Fixture) => ({ board: { id: c.board.id, name: 'Launch' } }),
  },
  {
    name: 'get invisible',
    method: 'GET',
    path: (c) => `/v1/boards/${c.board.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
    expect: { error: { code: 'not_found' } },
  },
  {
    name: 'update by the board admin',
    method: 'PATCH',
    path: (c) => `/v1/boards/${c.board.id}`,
    token: (c) => c.tokens.owner.write,
    body: { name: 'Renamed' },
    status: 200,
    expect: { board: { name: 'Renamed', trashed: false, trashed_at: null } },
  },
  {
    name: 'a board member (not admin) cannot rename',
    method: 'PATCH',
    path: (c) => `/v1/boards/${c.board.id}`,
    token: (c) => c.tokens.member.write,
    body: { name: 'Renamed' },
    status: 403,
    expect: { error: { code: 'forbidden' } },
  },
  {
    name: 'delete moves to the trash',
    method: 'DELETE',
    path: (c) => `/v1/boards/${c.board.id}`,
    token: (c) => c.tokens.owner.write,
    status: 204,
    after: async (c) => {
      const got = await c.t.req('GET', `/v1/boards/${c.board.id}`, { token: c.tokens.member.read })
      assert.equal(got.body.board.trashed, true)
      assert.equal(got.body.board.trashed_at, new Date(c.t.clock.now()).toISOString())
    },
  },
  {
    name: 'a board member (not admin) cannot delete',
    method: 'DELETE',
    path: (c) => `/v1/boards/${c.board.id}`,
    token: (c) => c.tokens.member.write,
    status: 403,
  },
  {
    name: 'clone',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/clone`,
    token: (c) => c.tokens.member.write,
    body: { name: 'Copy' },
    status: 201,
    expect: { board: { name: 'Copy', key_prefix: 'COP' }, lists: [{ name: 'To do' }, { name: 'In progress' }, { name: 'Done' }], tags: [], xattr_fields: [] },
  },
  {
    name: 'members list',
    method: 'GET',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: Fixture) => ({
      totalItems: 3,
      items: [
        { id: c.admin.id, board_role: 'member' },
        { id: c.member.id, board_role: 'member' },
        { id: c.owner.id, board_role: 'admin' },
      ],
    }),
  },
  {
    name: 'members list with filter and sort',
    method: 'GET',
    path: (c) => `/v1/boards/${c.board.id}/members?sort=-role&filter=${encodeURIComponent('role != "owner"')}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: Fixture) => ({ totalItems: 2, items: [{ id: c.member.id }, { id: c.admin.id }] }),
  },
  {
    name: 'members list of an invisible board',
    method: 'GET',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'add member twice',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.owner.write,
    body: (c: Fixture) => ({ user: c.member.id }),
    status: 409,
  },
  {
    name: 'add unknown user',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.owner.write,
    body: { user: 'ghost' },
    status: 422,
    field: 'user',
  },
  {
    name: 'outsider cannot add themselves',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.outsider.write,
    body: (c: Fixture) => ({ user: c.outsider.id }),
    status: 404,
  },
  {
    name: 'member with read token cannot add',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.member.read,
    body: (c: Fixture) => ({ user: c.outsider.id }),
    status: 403,
  },
  {
    name: 'a board member (not admin) cannot add',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.member.write,
    body: (c: Fixture) => ({ user: c.outsider.id }),
    status: 403,
    expect: { error: { code: 'forbidden' } },
  },
  {
    name: 'the board admin adds outsider',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.owner.write,
    body: (c: Fixture) => ({ user: c.outsider.id }),
    status: 201,
    expect: (c: Fixture) => ({ user: { id: c.outsider.id, board_role: 'member' } }),
    after: async (c) => assert.equal((await c.t.req('GET', `/v1/boards/${c.board.id}`, { token: c.tokens.outsider.read })).status, 200),
  },
  {
    name: 'add with an unknown board role',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.owner.write,
    body: (c: Fixture) => ({ user: c.outsider.id, role: 'owner' }),
    status: 422,
    field: 'role',
  },
  {
    name: 'remove non-member',
    method: 'DELETE',
    path: (c) => `/v1/boards/${c.board.id}/members/${c.outsider.id}`,
    token: (c) => c.tokens.owner.write,
    status: 404,
  },
])

runScenarios('lists', seededApp, [
  {
    name: 'create',
    method: 'POST',
    path: '/v1/lists',
    token: (c) => c.tokens.member.write,
    body: (c: Fixture) => ({ board: c.board.id, name: 'Review', category: 'started' }),
    status: 201,
    expect: (c: Fixture) => ({ list: { board: c.board.id, name: 'Review', category: 'started', position: 4 } }),
  },
  {
    name: 'bad category',
    method: 'POST',
    path: '/v1/lists',
    token: (c) => c.tokens.member.write,
    body: (c: Fixture) => ({ board: c.board.id, name: 'R', category: 'doing' }),
    status: 422,
    field: 'category',
  },
  {
    name: 'list by board',
    method: 'GET',
    path: (c) => `/v1/lists?board=${c.board.id}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: { totalItems: 3, items: [{ name: 'To do' }, { name: 'In progress' }, { name: 'Done' }] },
  },
  {
    name: 'list with filter',
    method: 'GET',
    path: `/v1/lists?filter=${encodeURIComponent('category="completed"')}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: { totalItems: 1, items: [{ name: 'Done' }] },
  },
  {
    name: 'list with bad filter',
    method: 'GET',
    path: `/v1/lists?filter=${encodeURIComponent('category=')}`,
    token: (c) => c.tokens.member.read,
    status: 400,
    expect: { error: { code: 'invalid_filter' } },
  },
  {
    name: 'list with expand=board',
    method: 'GET',
    path: (c) => `/v1/lists?board=${c.board.id}&expand=board&per_page=1`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: Fixture) => ({ totalItems: 3, totalPages: 3, items: [{ name: 'To do', expand: { board: { id: c.board.id, name: 'Launch' } } }] }),
  },
  { name: 'list with unknown expand', method: 'GET', path: '/v1/lists?expand=cards', token: (c) => c.tokens.member.read, status: 400 },
  {
    name: 'get',
    method: 'GET',
    path: (c) => `/v1/lists/${c.lists[0].id}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: { list: { name: 'To do' } },
  },
  { name: 'get invisible', method: 'GET', path: (c) => `/v1/lists/${c.lists[0].id}`, token: (c) => c.tokens.outsider.read, status: 404 },
  {
    name: 'update',
    method: 'PATCH',
    path: (c) => `/v1/lists/${c.lists[0].id}`,
    token: (c) => c.tokens.member.write,
    body: { name: 'Backlog', category: 'backlog', position: 0.5 },
    status: 200,
    expect: { list: { name: 'Backlog', category: 'backlog', position: 0.5 } },
  },
  { name: 'delete empty list', method: 'DELETE', path: (c) => `/v1/lists/${c.lists[1].id}`, token: (c) => c.tokens.member.write, status: 204 },
])

test('a list holding cards is deleted only with move_to', async () => {
  const c = await seededApp()
  try {
    const card = await c.t.req('POST', '/v1/cards', { token: c.tokens.member.write, body: { board: c.board.id, title: 'x' } })
    const refused = await c.t.req('DELETE', `/v1/lists/${c.lists[0].id}`, { token: c.tokens.member.write })
    assert.equal(refused.status, 409)
    assert.equal((await c.t.req('DELETE', `/v1/lists/${c.lists[0].id}?move_to=nope`, { token: c.tokens.member.write })).status, 422)
    assert.equal((await c.t.req('DELETE', `/v1/lists/${c.lists[0].id}?move_to=${c.lists[2].id}`, { token: c.tokens.member.write })).status, 204)
    assert.equal((await c.t.req('GET', `/v1/cards/${card.body.card.id}`, { token: c.tokens.member.read })).body.card.list, c.lists[2].id)
  } finally {
    await c.t.close()
  }
})

test('deleting the last list of a board is a conflict', async () => {
  const c = await seededApp()
  try {
    const b = (await c.t.req('POST', '/v1/boards', { token: c.tokens.member.write, body: { name: 'One', lists: ['Only'] } })).body
    const r = await c.t.req('DELETE', `/v1/lists/${b.lists[0].id}`, { token: c.tokens.member.write })
    assert.equal(r.status, 409)
    assert.equal(r.body.error.code, 'conflict')
  } finally {
    await c.t.close()
  }
})

runScenarios('tags', seededApp, [
  {
    name: 'create',
    method: 'POST',
    path: '/v1/tags',
    token: (c) => c.tokens.member.write,
    body: (c: Fixture) => ({ board: c.board.id, name: 'bug', color: '#aa0000' }),
    status: 201,
    expect: { tag: { name: 'bug', color: '#aa0000' } },
  },
  {
    name: 'name clash is a conflict, case-insensitively',
    method: 'POST',
    path: '/v1/tags',
    token: (c) => c.tokens.member.write,
    body: (c: Fixture) => ({ board: c.board.id, name: 'Bug' }),
    status: 201,
    async after(c) {
      const again = await c.t.req('POST', '/v1/tags', { token: c.tokens.member.write, body: { board: c.board.id, name: 'BUG' } })
      assert.equal(again.status, 409)
      const list = await c.t.req('GET', `/v1/tags?board=${c.board.id}`, { token: c.tokens.member.read })
      assert.equal(list.body.totalItems, 1)
      const tag = list.body.items[0]
      assert.equal((await c.t.req('PATCH', `/v1/tags/${tag.id}`, { token: c.tokens.member.write, body: { name: 'defect' } })).body.tag.name, 'defect')
      assert.equal((await c.t.req('GET', `/v1/tags/${tag.id}`, { token: c.tokens.outsider.read })).status, 404)
      assert.equal((await c.t.req('DELETE', `/v1/tags/${tag.id}`, { token: c.tokens.member.write })).status, 204)
    },
  },
  {
    name: 'bad color',
    method: 'POST',
    path: '/v1/tags',
    token: (c) => c.tokens.member.write,
    body: (c: Fixture) => ({ board: c.board.id, name: 'x', color: 'red' }),
    status: 422,
    field: 'color',
  },
  {
    name: 'board not visible',
    method: 'POST',
    path: '/v1/tags',
    token: (c) => c.tokens.outsider.write,
    body: (c: Fixture) => ({ board: c.board.id, name: 'x' }),
    status: 404,
  },
])

runScenarios('users', seededApp, [
  {
    name: 'me',
    method: 'GET',
    path: '/v1/users/me',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: Fixture) => ({ user: { id: c.member.id, email: c.member.email, role: 'member', kind: 'human' } }),
  },
  {
    name: 'list',
    method: 'GET',
    path: '/v1/users?sort=-created&per_page=2',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: { page: 1, perPage: 2, totalItems: 4, totalPages: 2 },
  },
  {
    name: 'list with expand=boards shows only boards shared with the caller',
    method: 'GET',
    path: `/v1/users?expand=boards&filter=${encodeURIComponent('role="member"')}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: { totalItems: 2 },
    after: (c, r) => {
      // Both users were created at the same (fake) instant, so their order is the id tie-break: look them up by id.
      const byId = new Map(r.body.items.map((u: any) => [u.id, u.expand.boards.map((b: any) => b.id)]))
      assert.deepEqual(byId.get(c.member.id), [c.board.id])
      assert.deepEqual(byId.get(c.outsider.id), [])
    },
  },
  {
    name: 'tokens with expand=owner',
    method: 'GET',
    path: '/v1/tokens?expand=owner&per_page=1',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: Fixture) => ({ items: [{ owner: { id: c.member.id }, expand: { owner: { id: c.member.id, email: c.member.email, role: 'member' } } }] }),
  },
  { name: 'tokens with unknown expand', method: 'GET', path: '/v1/tokens?expand=user', token: (c) => c.tokens.member.read, status: 400 },
  {
    name: 'list filtered',
    method: 'GET',
    path: `/v1/users?filter=${encodeURIComponent('role="admin"')}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: { totalItems: 1, items: [{ role: 'admin' }] },
  },
  {
    name: 'create by admin',
    method: 'POST',
    path: '/v1/users',
    token: (c) => c.tokens.admin.full,
    body: { email: 'new@x.test', name: 'New', role: 'member' },
    status: 201,
    expect: { user: { email: 'new@x.test', role: 'member' } },
  },
  {
    name: 'duplicate email',
    method: 'POST',
    path: '/v1/users',
    token: (c) => c.tokens.admin.full,
    body: (c: Fixture) => ({ email: c.member.email, name: 'Dup' }),
    status: 409,
  },
  {
    name: 'admin cannot make an owner',
    method: 'POST',
    path: '/v1/users',
    token: (c) => c.tokens.admin.full,
    body: { email: 'o@x.test', name: 'O', role: 'owner' },
    status: 403,
  },
  { name: 'bad email', method: 'POST', path: '/v1/users', token: (c) => c.tokens.admin.full, body: { email: 'nope', name: 'N' }, status: 422, field: 'email' },
  {
    name: 'create refuses unknown keys like every other body',
    method: 'POST',
    path: '/v1/users',
    token: (c) => c.tokens.admin.full,
    body: { email: 'new@example.test', name: 'N', is_admin: true },
    status: 422,
    field: 'is_admin',
    after: async (c) =>
      assert.equal(
        (await c.t.req('GET', '/v1/users?filter=' + encodeURIComponent('email = "new@example.test"'), { token: c.tokens.admin.read })).body.totalItems,
        0,
      ),
  },
  {
    name: 'change role',
    method: 'PATCH',
    path: (c) => `/v1/users/${c.member.id}`,
    token: (c) => c.tokens.owner.full,
    body: { role: 'admin' },
    status: 200,
    expect: { user: { role: 'admin' } },
  },
  {
    name: 'last owner keeps the role',
    method: 'PATCH',
    path: (c) => `/v1/users/${c.owner.id}`,
    token: (c) => c.tokens.owner.full,
    body: { role: 'member' },
    status: 409,
  },
  {
    name: 'member cannot change roles',
    method: 'PATCH',
    path: (c) => `/v1/users/${c.member.id}`,
    token: (c) => c.tokens.member.write,
    body: { role: 'admin' },
    status: 403,
  },
])

test('two key prefix changes at once: every card ends on the prefix the board has at the end', async () => {
  const c = await seededApp()
  try {
    await dbRunMany(
      c.t.deps.db,
      "INSERT INTO cards (id, board_id, list_id, key_num, key, title, position, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'x', ?, ?, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')",
      Array.from({ length: 180 }, (_, n) => [`k${n + 1}`, c.board.id, c.lists[0].id, n + 1, `LCH-${n + 1}`, n + 1, c.member.id]),
    )
    const [a, b] = await Promise.all(
      ['AAA', 'BBB'].map((key_prefix) => c.t.req('PATCH', `/v1/boards/${c.board.id}`, { token: c.tokens.owner.write, body: { key_prefix } })),
    )
    assert.equal(a.status, 200)
    assert.equal(b.status, 200)
    const prefix = (await c.t.req('GET', `/v1/boards/${c.board.id}`, { token: c.tokens.member.read })).body.board.key_prefix
    const keys = await dbAll<{ key: string; key_num: number }>(c.t.deps.db, 'SELECT key, key_num FROM cards WHERE board_id = ?', c.board.id)
    assert.equal(keys.length, 180)
    assert.deepEqual(
      keys.filter((k) => k.key !== `${prefix}-${k.key_num}`),
      [],
    )
  } finally {
    await c.t.close()
  }
})

test('card keys are unique in the workspace for good: prefixes clash nowhere, are never reused, and old keys still resolve', async () => {
  const c = await seededApp()
  try {
    const token = c.tokens.owner.write
    const board = async (body: Record<string, unknown>) => c.t.req('POST', '/v1/boards', { token, body })
    const prefixOf = async (body: Record<string, unknown>) => {
      const r = await board(body)
      assert.equal(r.status, 201, r.text)
      return r.body.board as { id: string; key_prefix: string }
    }
    const refused = async (r: Awaited<ReturnType<typeof board>>, what: string) => {
      assert.equal(r.status, 422, `${what}: ${r.text}`)
      assert.equal(r.body.error.details[0].path, 'key_prefix', what)
    }
    // Given, derived, cloned: every shape of clash.
    await prefixOf({ name: 'Alpha', key_prefix: 'AL' })
    await refused(await board({ name: 'Another', key_prefix: 'AL' }), 'a given prefix in use')
    await refused(await board({ name: 'Launch two', key_prefix: 'LCH' }), "the seeded board's prefix")
    assert.equal((await prefixOf({ name: 'Marketing' })).key_prefix, 'MAR')
    assert.equal((await prefixOf({ name: 'Mars' })).key_prefix, 'MAR2', 'a derived prefix gets a number on a clash')
    const marvel = await prefixOf({ name: 'Marvel' })
    assert.equal(marvel.key_prefix, 'MAR3')
    const clone = await c.t.req('POST', `/v1/boards/${marvel.id}/clone`, { token, body: {} })
    assert.equal(clone.status, 201)
    assert.equal(clone.body.board.key_prefix, 'MAR4', 'a clone gets a fresh prefix')
    // A deleted board's prefix stays reserved: TMP-1 is never issued twice.
    const tmp = await prefixOf({ name: 'Temp', key_prefix: 'TMP' })
    const first = await c.t.req('POST', '/v1/cards', { token, body: { board: tmp.id, title: 'x' } })
    assert.equal(first.body.card.key, 'TMP-1')
    assert.equal((await c.t.req('DELETE', `/v1/boards/${tmp.id}?permanent=true`, { token })).status, 204)
    await refused(await board({ name: 'Temp again', key_prefix: 'TMP' }), "a deleted board's prefix")
    assert.equal((await prefixOf({ name: 'Tmp' })).key_prefix, 'TMP2')
    // A renamed prefix keeps the old keys resolving, and stays the board's own.
    const old = await prefixOf({ name: 'Old', key_prefix: 'OLD' })
    for (let i = 0; i < 3; i++) await c.t.req('POST', '/v1/cards', { token, body: { board: old.id, title: `card ${i}` } })
    assert.equal((await c.t.req('PATCH', `/v1/boards/${old.id}`, { token, body: { key_prefix: 'NEW' } })).status, 200)
    const byOldKey = await c.t.req('GET', `/v1/cards?filter=${encodeURIComponent('key = "OLD-3"')}`, { token })
    assert.deepEqual(
      byOldKey.body.items.map((i: { key: string }) => i.key),
      ['NEW-3'],
    )
    const notOld = await c.t.req('GET', `/v1/cards?board=${old.id}&filter=${encodeURIComponent('key != "OLD-3"')}`, { token })
    assert.deepEqual(notOld.body.items.map((i: { key: string }) => i.key).sort(), ['NEW-1', 'NEW-2'])
    await refused(await board({ name: 'Oldies', key_prefix: 'OLD' }), "a renamed board's old prefix")
    await refused(await c.t.req('PATCH', `/v1/boards/${c.board.id}`, { token, body: { key_prefix: 'OLD' } }), 'taking it by rename')
    assert.equal((await c.t.req('PATCH', `/v1/boards/${old.id}`, { token, body: { key_prefix: 'OLD' } })).status, 200, 'its own old prefix may come back')
  } finally {
    await c.t.close()
  }
})
