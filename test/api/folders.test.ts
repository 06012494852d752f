// Folders of boards through HTTP: any member with a write token creates one, its creator and owners and admins change
// and delete it, every member reads them all; nesting at most 5 deep and never in itself; boards carry `folder`; a
// deleted folder's boards and folders move to its parent.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { runScenarios } from '../helpers/scenarios.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  const top = await t.req('POST', '/v1/folders', { token: tokens.owner.write, body: { name: 'Top' } })
  assert.equal(top.status, 201, top.text)
  const inner = (await t.req('POST', '/v1/folders', { token: tokens.owner.write, body: { name: 'Inner', parent: top.body.folder.id } })).body.folder
  const mine = (await t.req('POST', '/v1/folders', { token: tokens.member.write, body: { name: 'Mine' } })).body.folder
  return { ...s, top: top.body.folder, inner, mine }
}
type C = Awaited<ReturnType<typeof fixture>>

const post = (c: C, url: string, body: unknown, token = c.tokens.owner.write) => c.t.req('POST', url, { token, body })
const patch = (c: C, url: string, body: unknown, token = c.tokens.owner.write) => c.t.req('PATCH', url, { token, body })
const get = (c: C, url: string, token = c.tokens.owner.read) => c.t.req('GET', url, { token })

runScenarios<C>('folders', fixture, [
  {
    name: 'a member creates a folder at the top, after the others, with its event',
    method: 'POST',
    path: '/v1/folders',
    token: (c) => c.tokens.outsider.write,
    body: { name: 'Theirs' },
    status: 201,
    events: ['folder.created'],
    expect: { folder: { name: 'Theirs', parent: null, position: 3 } },
  },
  {
    name: 'a folder inside another',
    method: 'POST',
    path: '/v1/folders',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ name: 'Deeper', parent: c.inner.id }),
    status: 201,
    expect: (c: C) => ({ folder: { parent: c.inner.id, position: 1 } }),
  },
  { name: 'a missing name is named', method: 'POST', path: '/v1/folders', token: (c) => c.tokens.member.write, body: {}, status: 422, field: 'name' },
  {
    name: 'a parent that does not exist is named',
    method: 'POST',
    path: '/v1/folders',
    token: (c) => c.tokens.member.write,
    body: { name: 'x', parent: 'nope' },
    status: 422,
    field: 'parent',
  },
  { name: 'a read-only token cannot create one', method: 'POST', path: '/v1/folders', token: (c) => c.tokens.owner.read, body: { name: 'x' }, status: 403 },
  {
    name: 'a read-only token cannot rename one',
    method: 'PATCH',
    path: (c) => `/v1/folders/${c.mine.id}`,
    token: (c) => c.tokens.member.read,
    body: { name: 'x' },
    status: 403,
  },
  {
    name: 'a member cannot rename a folder someone else made: 403',
    method: 'PATCH',
    path: (c) => `/v1/folders/${c.top.id}`,
    token: (c) => c.tokens.member.write,
    body: { name: 'x' },
    status: 403,
    events: [],
  },
  {
    name: 'a member cannot delete a folder someone else made: 403',
    method: 'DELETE',
    path: (c) => `/v1/folders/${c.top.id}`,
    token: (c) => c.tokens.outsider.write,
    status: 403,
  },
  {
    name: 'its creator renames and moves it',
    method: 'PATCH',
    path: (c) => `/v1/folders/${c.mine.id}`,
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ name: 'Ours', parent: c.top.id }),
    status: 200,
    events: ['folder.updated'],
    expect: (c: C) => ({ folder: { name: 'Ours', parent: c.top.id, position: 2 } }),
  },
  {
    name: 'a workspace admin renames anyone’s',
    method: 'PATCH',
    path: (c) => `/v1/folders/${c.mine.id}`,
    token: (c) => c.tokens.admin.write,
    body: { name: 'Admin’s', position: 0.5 },
    status: 200,
    expect: { folder: { name: 'Admin’s', position: 0.5 } },
  },
  {
    name: 'a folder cannot go into itself',
    method: 'PATCH',
    path: (c) => `/v1/folders/${c.top.id}`,
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ parent: c.top.id }),
    status: 422,
    field: 'parent',
  },
  {
    name: 'a folder cannot go into one of its own folders',
    method: 'PATCH',
    path: (c) => `/v1/folders/${c.top.id}`,
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ parent: c.inner.id }),
    status: 422,
    field: 'parent',
    events: [],
  },
  {
    name: 'every member reads every folder, also without a board in common',
    method: 'GET',
    path: '/v1/folders?sort=name&expand=parent',
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: (c: C) => ({
      totalItems: 3,
      items: [
        { name: 'Inner', expand: { parent: { id: c.top.id, name: 'Top' } } },
        { name: 'Mine', expand: { parent: null } },
        { name: 'Top', expand: { parent: null } },
      ],
    }),
  },
  {
    name: 'a filter on the parent',
    method: 'GET',
    path: (c) => `/v1/folders?filter=${encodeURIComponent(`parent = "${c.top.id}" || parent.name = "Inner"`)}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.inner.id }] }),
  },
  { name: 'an unknown folder is a 404', method: 'GET', path: '/v1/folders/nope', token: (c) => c.tokens.member.read, status: 404 },
  {
    name: 'its creator deletes it',
    method: 'DELETE',
    path: (c) => `/v1/folders/${c.mine.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: ['folder.deleted'],
  },
])

test('folders nest at most 5 deep: a deeper one, or a move that would make one, is a 422 naming parent', async () => {
  const c = await fixture()
  try {
    // Top (1) > Inner (2) > three (3) > four (4) > five (5)
    let parent = c.inner.id
    for (const name of ['three', 'four', 'five']) parent = (await post(c, '/v1/folders', { name, parent })).body.folder.id
    const six = await post(c, '/v1/folders', { name: 'six', parent })
    assert.equal(six.status, 422)
    assert.equal(six.body.error.details[0].path, 'parent')
    // Mine has a folder inside it: two levels, which fit under "three" but not under "four".
    const sub = (await post(c, '/v1/folders', { name: 'sub', parent: c.mine.id }, c.tokens.member.write)).body.folder
    const four = (await get(c, `/v1/folders?filter=${encodeURIComponent('name = "four"')}`)).body.items[0]
    const tooDeep = await patch(c, `/v1/folders/${c.mine.id}`, { parent: four.id }, c.tokens.member.write)
    assert.equal(tooDeep.status, 422)
    assert.equal(tooDeep.body.error.details[0].path, 'parent')
    const fits = await patch(c, `/v1/folders/${c.mine.id}`, { parent: four.parent }, c.tokens.member.write)
    assert.equal(fits.status, 200, fits.text)
    assert.equal((await get(c, `/v1/folders/${sub.id}`)).body.folder.parent, c.mine.id)
  } finally {
    await c.t.close()
  }
})

test('boards carry their folder; every member sees the folder, the board only its members; a deleted folder’s content moves up', async () => {
  const c = await fixture()
  try {
    const made = await post(c, '/v1/boards', { name: 'Filed', folder: c.inner.id })
    assert.equal(made.status, 201, made.text)
    const board = made.body.board
    assert.equal(board.folder, c.inner.id)
    const refused = await post(c, '/v1/boards', { name: 'Nowhere', folder: 'nope' })
    assert.equal(refused.status, 422)
    assert.equal(refused.body.error.details[0].path, 'folder')
    // The seeded board goes into Top; its members see it there, the outsider sees the folders but not the board.
    const moved = await patch(c, `/v1/boards/${c.board.id}`, { folder: c.top.id })
    assert.equal(moved.body.board.folder, c.top.id)
    assert.equal((await get(c, `/v1/boards/${c.board.id}`, c.tokens.member.read)).body.board.folder, c.top.id)
    assert.equal((await get(c, `/v1/boards/${c.board.id}`, c.tokens.outsider.read)).status, 404)
    assert.equal((await get(c, `/v1/folders/${c.top.id}`, c.tokens.outsider.read)).status, 200)
    const inTop = await get(c, `/v1/boards?filter=${encodeURIComponent(`folder = "${c.top.id}"`)}`, c.tokens.outsider.read)
    assert.equal(inTop.body.totalItems, 0)
    assert.equal((await get(c, `/v1/boards?filter=${encodeURIComponent('folder.name = "Top"')}`, c.tokens.member.read)).body.totalItems, 1)

    // Inner goes: its board and its folder move to Top.
    const deeper = (await post(c, '/v1/folders', { name: 'Deeper', parent: c.inner.id })).body.folder
    assert.equal((await c.t.req('DELETE', `/v1/folders/${c.inner.id}`, { token: c.tokens.owner.write })).status, 204)
    assert.equal((await get(c, `/v1/boards/${board.id}`)).body.board.folder, c.top.id)
    assert.equal((await get(c, `/v1/folders/${deeper.id}`)).body.folder.parent, c.top.id)
    // Top goes: everything in it ends at the top.
    assert.equal((await c.t.req('DELETE', `/v1/folders/${c.top.id}`, { token: c.tokens.admin.write })).status, 204)
    assert.equal((await get(c, `/v1/boards/${board.id}`)).body.board.folder, null)
    assert.equal((await get(c, `/v1/folders/${deeper.id}`)).body.folder.parent, null)
    // null takes a board out of its folder; a clone stays in its source's folder.
    await patch(c, `/v1/boards/${board.id}`, { folder: deeper.id })
    const clone = await post(c, `/v1/boards/${board.id}/clone`, {})
    assert.equal(clone.body.board.folder, deeper.id)
    assert.equal((await patch(c, `/v1/boards/${board.id}`, { folder: null })).body.board.folder, null)
  } finally {
    await c.t.close()
  }
})
