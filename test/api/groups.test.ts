// Groups and teams through HTTP: owners and admins manage them, every member reads them; names unique whatever the case;
// `GET /v1/cards?team=` and the filters `team` (cards) and `groups` (users); a group added to a board at once.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbAll } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  const made = await t.req('POST', '/v1/groups', { token: tokens.admin.write, body: { name: 'Platform', kind: 'team', members: [s.member.id, s.outsider.id] } })
  assert.equal(made.status, 201, made.text)
  return { ...s, team: made.body.group }
}
type C = Awaited<ReturnType<typeof fixture>>

const sorted = (ids: string[]) => [...ids].sort()

runScenarios<C>('groups', fixture, [
  {
    name: 'an owner creates a group, its members sorted, with its event',
    method: 'POST',
    path: '/v1/groups',
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ name: 'Reviewers', members: [c.owner.id, c.admin.id, c.owner.id] }),
    status: 201,
    events: ['group.created'],
    expect: (c: C) => ({ group: { name: 'Reviewers', kind: 'group', members: sorted([c.owner.id, c.admin.id]) } }),
  },
  {
    name: 'a name that differs only in case is a 409',
    method: 'POST',
    path: '/v1/groups',
    token: (c) => c.tokens.owner.write,
    body: { name: 'PLATFORM' },
    status: 409,
    events: [],
  },
  {
    name: 'a member who is no user is named',
    method: 'POST',
    path: '/v1/groups',
    token: (c) => c.tokens.owner.write,
    body: { name: 'x', members: ['nobody'] },
    status: 422,
    field: 'members',
  },
  {
    name: 'an unknown kind is named',
    method: 'POST',
    path: '/v1/groups',
    token: (c) => c.tokens.owner.write,
    body: { name: 'x', kind: 'squad' },
    status: 422,
    field: 'kind',
  },
  {
    name: 'a member cannot create a group: 403',
    method: 'POST',
    path: '/v1/groups',
    token: (c) => c.tokens.member.write,
    body: { name: 'x' },
    status: 403,
    events: [],
  },
  {
    name: 'a member cannot change a group: 403',
    method: 'PATCH',
    path: (c) => `/v1/groups/${c.team.id}`,
    token: (c) => c.tokens.member.write,
    body: { members: [] },
    status: 403,
  },
  {
    name: 'a member cannot delete a group: 403',
    method: 'DELETE',
    path: (c) => `/v1/groups/${c.team.id}`,
    token: (c) => c.tokens.outsider.write,
    status: 403,
  },
  {
    name: 'a read-only token of an owner cannot create one: 403',
    method: 'POST',
    path: '/v1/groups',
    token: (c) => c.tokens.owner.read,
    body: { name: 'x' },
    status: 403,
  },
  {
    name: 'every member reads them, with members expanded',
    method: 'GET',
    path: '/v1/groups?expand=members&filter=kind%3D%22team%22',
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.team.id, name: 'Platform', kind: 'team', expand: { members: [{}, {}] } }] }),
  },
  {
    name: 'a filter on members',
    method: 'GET',
    path: (c) => `/v1/groups?filter=${encodeURIComponent(`members ~ "${c.owner.id}"`)}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: { totalItems: 0, items: [] },
  },
  { name: 'an unknown group is a 404', method: 'GET', path: '/v1/groups/nope', token: (c) => c.tokens.member.read, status: 404 },
  {
    name: 'an admin replaces its members and renames it',
    method: 'PATCH',
    path: (c) => `/v1/groups/${c.team.id}`,
    token: (c) => c.tokens.admin.write,
    body: (c: C) => ({ name: 'platform', kind: 'group', members: [c.admin.id] }),
    status: 200,
    events: ['group.updated'],
    expect: (c: C) => ({ group: { name: 'platform', kind: 'group', members: [c.admin.id] } }),
  },
  {
    name: 'an admin deletes it',
    method: 'DELETE',
    path: (c) => `/v1/groups/${c.team.id}`,
    token: (c) => c.tokens.admin.write,
    status: 204,
    events: ['group.deleted'],
  },
  {
    name: 'a group adds its members who are not on the board yet: 200 { added }',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ group: c.team.id }),
    status: 200,
    events: ['board.member_added', 'audit.entry'],
    expect: (c: C) => ({ added: [c.outsider.id] }),
  },
  {
    name: 'a group that does not exist is named',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.owner.write,
    body: { group: 'nope' },
    status: 422,
    field: 'group',
  },
  {
    name: 'user and group together are refused, naming group',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ group: c.team.id, user: c.outsider.id }),
    status: 422,
    field: 'group',
  },
  {
    name: 'neither user nor group is refused, naming user',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.owner.write,
    body: {},
    status: 422,
    field: 'user',
  },
  {
    name: 'a board member who is no board admin cannot add a group: 403',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ group: c.team.id }),
    status: 403,
    events: [],
  },
])

test('cards of a team: ?team= and the filter team select cards assigned to any member; users filter groups', async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.owner.write
    const card = async (title: string, assignees: string[]) =>
      (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title, assignees } })).body.card
    await card('member’s', [c.member.id])
    await card('admin’s', [c.admin.id])
    await card('both', [c.admin.id, c.member.id])
    await card('nobody’s', [])
    const titles = async (q: string) =>
      (await c.t.req('GET', `/v1/cards?${q}`, { token: tok })).body.items
        .map((i: any) => i.title)
        .sort()
        .join(',')
    assert.equal(await titles(`team=${c.team.id}`), 'both,member’s')
    assert.equal(await titles(`filter=${encodeURIComponent(`team = "${c.team.id}"`)}`), 'both,member’s')
    assert.equal(await titles(`filter=${encodeURIComponent(`team ~ "${c.team.id}"`)}`), 'both,member’s')
    assert.equal(await titles(`filter=${encodeURIComponent(`team != "${c.team.id}"`)}`), 'admin’s,nobody’s')
    assert.equal(await titles('team=nope'), '')
    const users = await c.t.req('GET', `/v1/users?filter=${encodeURIComponent(`groups ~ "${c.team.id}"`)}`, { token: tok })
    assert.deepEqual(sorted(users.body.items.map((u: any) => u.id)), sorted([c.member.id, c.outsider.id]))
    // A change of members shows at once.
    await c.t.req('PATCH', `/v1/groups/${c.team.id}`, { token: c.tokens.admin.write, body: { members: [c.admin.id] } })
    assert.equal(await titles(`team=${c.team.id}`), 'admin’s,both')
  } finally {
    await c.t.close()
  }
})

test('a group added to a board twice adds no one the second time; each added member is announced', async () => {
  const c = await fixture()
  try {
    const other = (await c.t.req('POST', '/v1/boards', { token: c.tokens.admin.write, body: { name: 'Fresh', key_prefix: 'FRS' } })).body.board
    const first = await c.t.req('POST', `/v1/boards/${other.id}/members`, { token: c.tokens.admin.write, body: { group: c.team.id } })
    assert.equal(first.status, 200, first.text)
    assert.deepEqual(sorted(first.body.added), sorted([c.member.id, c.outsider.id]))
    const again = await c.t.req('POST', `/v1/boards/${other.id}/members`, { token: c.tokens.admin.write, body: { group: c.team.id } })
    assert.deepEqual(again.body, { added: [] })
    const events = await dbAll<{ data: string }>(c.t.deps.db, "SELECT data FROM events WHERE name = 'board.member_added' AND board_id = ?", other.id)
    assert.deepEqual(sorted(events.map((e) => JSON.parse(e.data).user.id)), sorted([c.member.id, c.outsider.id]))
    const members = await c.t.req('GET', `/v1/boards/${other.id}/members`, { token: c.tokens.outsider.read })
    assert.equal(members.status, 200)
    assert.deepEqual(members.body.items.map((m: any) => m.board_role).sort(), ['admin', 'member', 'member'])
  } finally {
    await c.t.close()
  }
})
