// Notes and note folders through HTTP: create, read, edit and delete with the board's rights (board-less ones: their
// author, owners and admins), cards and folders that must sit on the note's board, the list's filter, sort and expand,
// bulk-update with some ids failing, folder trees (same board, no cycles, deletion), and what deleting a card or a
// board does to them. Notes emit no events.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbGet, dbRun } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  const ok = async (path: string, token: string, body: unknown) => {
    const r = await t.req('POST', path, { token, body })
    assert.ok(r.status < 300, `${path}: ${r.text}`)
    return r.body
  }
  // The outsider is a member of another board only.
  const other = (await ok('/v1/boards', tokens.outsider.write, { name: 'Other', key_prefix: 'OTH' })).board
  const card = (await ok('/v1/cards', tokens.member.write, { board: s.board.id, title: 'Ship it' })).card
  const otherCard = (await ok('/v1/cards', tokens.outsider.write, { board: other.id, title: 'Elsewhere' })).card
  const folder = (await ok('/v1/note-folders', tokens.member.write, { name: 'Specs', board: s.board.id })).note_folder
  const otherFolder = (await ok('/v1/note-folders', tokens.outsider.write, { name: 'Theirs', board: other.id })).note_folder
  const ownFolder = (await ok('/v1/note-folders', tokens.member.write, { name: 'Mine' })).note_folder
  const note = (await ok('/v1/notes', tokens.member.write, { title: 'Plan', body: '# Plan', card: card.id, folder: folder.id })).note
  const own = (await ok('/v1/notes', tokens.member.write, { title: 'Diary', body: 'private', folder: ownFolder.id })).note
  return { ...s, other, card, otherCard, folder, otherFolder, ownFolder, note, own }
}
type C = Awaited<ReturnType<typeof fixture>>

const AT = '2026-11-21T12:00:00.000Z'

runScenarios<C>('notes', fixture, [
  {
    name: 'a member creates a note on a board; nothing is emitted',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ title: '  Retro  ', body: '- went well\n', board: c.board.id }),
    status: 201,
    events: [],
    expect: (c: C) => ({
      note: { title: 'Retro', body: '- went well\n', folder: null, board: c.board.id, card: null, created_by: { id: c.member.id }, created: AT, updated: AT },
    }),
  },
  {
    name: "a card puts the note on the card's board",
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ title: 'On the task', card: c.card.id }),
    status: 201,
    expect: (c: C) => ({ note: { board: c.board.id, card: c.card.id, body: '' } }),
  },
  {
    name: 'without board or card, a note is board-less',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.outsider.write,
    body: { title: 'Loose' },
    status: 201,
    expect: (c: C) => ({ note: { board: null, card: null, folder: null, created_by: { id: c.outsider.id } } }),
  },
  {
    name: 'a card and a different board: 422 on board',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ title: 'x', card: c.card.id, board: c.other.id }),
    status: 422,
    field: 'board',
  },
  {
    name: 'a folder on another board: 422 on folder',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ title: 'x', board: c.board.id, folder: c.otherFolder.id }),
    status: 422,
    field: 'folder',
  },
  {
    name: 'a board folder for a board-less note: 422 on folder',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ title: 'x', folder: c.folder.id }),
    status: 422,
    field: 'folder',
  },
  {
    name: 'a board the caller does not see: 404',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ title: 'x', board: c.other.id }),
    status: 404,
  },
  {
    name: 'a card the caller does not see: 404',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ title: 'x', card: c.otherCard.id }),
    status: 404,
  },
  {
    name: 'a folder the caller does not see: 404',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => ({ title: 'x', folder: c.ownFolder.id }),
    status: 404,
  },
  { name: 'an empty title: 422', method: 'POST', path: '/v1/notes', token: (c) => c.tokens.member.write, body: { title: '  ' }, status: 422, field: 'title' },
  {
    name: 'a title over 500 characters: 422',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.member.write,
    body: { title: 'x'.repeat(501) },
    status: 422,
    field: 'title',
  },
  {
    name: 'a body of 1,000,000 characters is taken',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.member.write,
    body: { title: 'Long', body: 'x'.repeat(1_000_000) },
    status: 201,
    after: (_c, r) => assert.equal(r.body.note.body.length, 1_000_000),
  },
  {
    name: 'a body over 1,000,000 characters: 422, nothing written',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.member.write,
    body: { title: 'Too long', body: 'x'.repeat(1_000_001) },
    status: 422,
    field: 'body',
    after: async (c) => assert.equal((await dbGet<{ n: number }>(c.t.deps.db, "SELECT count(*) AS n FROM notes WHERE title = 'Too long'"))!.n, 0),
  },
  {
    name: 'an unknown field: 422 naming it',
    method: 'POST',
    path: '/v1/notes',
    token: (c) => c.tokens.member.write,
    body: { title: 'x', colour: 'red' },
    status: 422,
    field: 'colour',
  },
  { name: 'a read-only token cannot create: 403', method: 'POST', path: '/v1/notes', token: (c) => c.tokens.member.read, body: { title: 'x' }, status: 403 },
  {
    name: 'the author edits title and body',
    method: 'PATCH',
    path: (c) => `/v1/notes/${c.note.id}`,
    token: (c) => c.tokens.member.write,
    body: { title: 'Plan B', body: 'changed' },
    status: 200,
    events: [],
    expect: (c: C) => ({ note: { title: 'Plan B', body: 'changed', card: c.card.id, folder: c.folder.id, board: c.board.id } }),
  },
  {
    name: 'taken off its board, a note leaves its card and folder',
    method: 'PATCH',
    path: (c) => `/v1/notes/${c.note.id}`,
    token: (c) => c.tokens.member.write,
    body: { board: null },
    status: 200,
    expect: { note: { board: null, card: null, folder: null } },
  },
  {
    name: 'moved to another board with a folder there, it leaves its card and takes the folder',
    method: 'PATCH',
    path: (c) => `/v1/notes/${c.note.id}`,
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ board: c.other.id, folder: c.otherFolder.id }),
    status: 200,
    expect: (c: C) => ({ note: { board: c.other.id, card: null, folder: c.otherFolder.id } }),
  },
  {
    name: 'put on a card of another board, it moves with it',
    method: 'PATCH',
    path: (c) => `/v1/notes/${c.note.id}`,
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ card: c.otherCard.id }),
    status: 200,
    expect: (c: C) => ({ note: { board: c.other.id, card: c.otherCard.id, folder: null } }),
  },
  {
    name: 'its card taken away, it stays on its board and in its folder',
    method: 'PATCH',
    path: (c) => `/v1/notes/${c.note.id}`,
    token: (c) => c.tokens.member.write,
    body: { card: null },
    status: 200,
    expect: (c: C) => ({ note: { board: c.board.id, card: null, folder: c.folder.id } }),
  },
  {
    name: 'a folder on another board: 422 on folder',
    method: 'PATCH',
    path: (c) => `/v1/notes/${c.note.id}`,
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ folder: c.otherFolder.id }),
    status: 422,
    field: 'folder',
  },
  {
    name: 'a board-less note into a board folder: 422 on folder',
    method: 'PATCH',
    path: (c) => `/v1/notes/${c.own.id}`,
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ folder: c.folder.id }),
    status: 422,
    field: 'folder',
  },
  {
    name: 'a read-only token cannot edit: 403',
    method: 'PATCH',
    path: (c) => `/v1/notes/${c.note.id}`,
    token: (c) => c.tokens.member.read,
    body: { title: 'x' },
    status: 403,
  },
  {
    name: 'a member deletes a note of their board',
    method: 'DELETE',
    path: (c) => `/v1/notes/${c.note.id}`,
    token: (c) => c.tokens.admin.write,
    status: 204,
    events: [],
    after: async (c) => assert.equal((await c.t.req('GET', `/v1/notes/${c.note.id}`, { token: c.tokens.member.read })).status, 404),
  },
  {
    name: 'a member of another board cannot delete it: 404',
    method: 'DELETE',
    path: (c) => `/v1/notes/${c.note.id}`,
    token: (c) => c.tokens.outsider.write,
    status: 404,
  },
  {
    name: 'another member cannot delete a board-less note: 404',
    method: 'DELETE',
    path: (c) => `/v1/notes/${c.own.id}`,
    token: (c) => c.tokens.outsider.write,
    status: 404,
  },
  {
    name: 'expand on one note: its folder, board and card',
    method: 'GET',
    path: (c) => `/v1/notes/${c.note.id}?expand=folder,board,card`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({
      note: { expand: { folder: { id: c.folder.id, name: 'Specs' }, board: { id: c.board.id, name: 'Launch' }, card: { id: c.card.id, key: 'LCH-1' } } },
    }),
  },
  {
    name: 'an unknown expand: 400',
    method: 'GET',
    path: (c) => `/v1/notes/${c.note.id}?expand=author`,
    token: (c) => c.tokens.member.read,
    status: 400,
  },
])

test('who sees and changes a note: the board’s members, owners and admins; a board-less one: its author, owners and admins', async () => {
  const c = await fixture()
  try {
    const { tokens } = c
    const rows: [string, string, string, number][] = [
      ['owner', tokens.owner.write, c.note.id, 200],
      ['admin', tokens.admin.write, c.note.id, 200],
      ['member of the board', tokens.member.write, c.note.id, 200],
      ['member of another board', tokens.outsider.write, c.note.id, 404],
      ['author of a board-less note', tokens.member.write, c.own.id, 200],
      ['owner, board-less', tokens.owner.write, c.own.id, 200],
      ['admin, board-less', tokens.admin.write, c.own.id, 200],
      ['another member, board-less', tokens.outsider.write, c.own.id, 404],
    ]
    for (const [who, token, id, status] of rows) {
      const got = await c.t.req('GET', `/v1/notes/${id}`, { token })
      assert.equal(got.status, status, `${who} reads: ${got.text}`)
      const changed = await c.t.req('PATCH', `/v1/notes/${id}`, { token, body: { body: `by ${who}` } })
      assert.equal(changed.status, status, `${who} writes: ${changed.text}`)
      if (status === 404) assert.equal(changed.body.error.code, 'not_found')
      const listed = (await c.t.req('GET', `/v1/notes?filter=${encodeURIComponent(`id = "${id}"`)}`, { token })).body.totalItems
      assert.equal(listed, status === 200 ? 1 : 0, `${who} lists it`)
    }
    for (const token of [tokens.member.read, tokens.owner.read]) {
      assert.equal((await c.t.req('GET', `/v1/notes/${c.note.id}`, { token })).status, 200)
      assert.equal((await c.t.req('PATCH', `/v1/notes/${c.note.id}`, { token, body: { title: 'x' } })).status, 403)
      assert.equal((await c.t.req('DELETE', `/v1/notes/${c.note.id}`, { token })).status, 403)
    }
    // A board in the trash takes its notes out of sight, for owners too.
    assert.equal((await c.t.req('DELETE', `/v1/boards/${c.board.id}`, { token: tokens.owner.write })).status, 204)
    assert.equal((await c.t.req('GET', `/v1/notes/${c.note.id}`, { token: tokens.owner.read })).status, 404)
    assert.equal((await c.t.req('GET', `/v1/notes?filter=${encodeURIComponent(`id = "${c.note.id}"`)}`, { token: tokens.owner.read })).body.totalItems, 0)
  } finally {
    await c.t.close()
  }
})

test('a board-less note whose author is gone shows created_by null and is left to owners and admins', async () => {
  const c = await fixture()
  try {
    await dbRun(c.t.deps.db, 'UPDATE notes SET created_by = NULL WHERE id = ?', c.own.id)
    assert.equal((await c.t.req('GET', `/v1/notes/${c.own.id}`, { token: c.tokens.member.read })).status, 404)
    const seen = await c.t.req('GET', `/v1/notes/${c.own.id}`, { token: c.tokens.admin.read })
    assert.equal(seen.status, 200)
    assert.equal(seen.body.note.created_by, null)
  } finally {
    await c.t.close()
  }
})

test('the list: filter, sort (newest change first by default), expand and the page envelope', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    t.clock.advance(60_000)
    const later = (
      await t.req('POST', '/v1/notes', { token: tokens.admin.write, body: { title: 'Release notes', body: 'Check the ROADMAP', board: c.board.id } })
    ).body.note
    t.clock.advance(60_000)
    await t.req('PATCH', `/v1/notes/${c.own.id}`, { token: tokens.member.write, body: { body: 'edited' } })
    const list = async (query: string, token = tokens.member.read) => {
      const r = await t.req('GET', `/v1/notes?${query}`, { token })
      assert.equal(r.status, 200, r.text)
      return r.body
    }
    const titles = (page: { items: { title: string }[] }) => page.items.map((n) => n.title)
    const all = await list('')
    assert.deepEqual(
      { page: all.page, perPage: all.perPage, totalItems: all.totalItems, totalPages: all.totalPages },
      { page: 1, perPage: 30, totalItems: 3, totalPages: 1 },
    )
    assert.deepEqual(titles(all), ['Diary', 'Release notes', 'Plan'], 'the latest change first')
    assert.deepEqual(titles(await list('sort=created,title')), ['Diary', 'Plan', 'Release notes'])
    assert.deepEqual(titles(await list('sort=-title')), ['Release notes', 'Plan', 'Diary'])
    assert.deepEqual(titles(await list('per_page=2&page=2&sort=created,title')), ['Release notes'])
    const q = (f: string) => `filter=${encodeURIComponent(f)}`
    assert.deepEqual(titles(await list(q('body ~ "roadmap"'))), ['Release notes'], 'body ~ ignores case')
    assert.deepEqual(titles(await list(q('title ~ "PLAN"'))), ['Plan'])
    assert.deepEqual(titles(await list(q(`folder = "${c.folder.id}"`))), ['Plan'])
    assert.deepEqual(titles(await list(q(`card = "${c.card.id}"`))), ['Plan'])
    assert.deepEqual(titles(await list(q('board = null'))), ['Diary'])
    assert.deepEqual(titles(await list(q('board.name = "Launch"') + '&sort=title')), ['Plan', 'Release notes'])
    assert.deepEqual(titles(await list(q(`created_by = "${c.admin.id}"`))), ['Release notes'])
    assert.deepEqual(titles(await list(q(`created > "${AT}"`))), ['Release notes'])
    assert.deepEqual(titles(await list(q(`updated > "${later.updated}"`))), ['Diary'])
    assert.equal((await t.req('GET', `/v1/notes?${q('colour = "red"')}`, { token: tokens.member.read })).body.error.code, 'invalid_filter')
    assert.equal((await t.req('GET', '/v1/notes?sort=size', { token: tokens.member.read })).status, 400)

    const expanded = await list('expand=folder,board,card&sort=created,title')
    assert.deepEqual(
      expanded.items.map((n: any) => [n.expand.folder?.name ?? null, n.expand.board?.name ?? null, n.expand.card?.title ?? null]),
      [
        ['Mine', null, null],
        ['Specs', 'Launch', 'Ship it'],
        [null, 'Launch', null],
      ],
    )
    assert.equal((await list('')).items[0].expand, undefined, 'no expand, no expand key')
    // The other member sees only the notes of their board and their own.
    assert.equal((await list('', tokens.outsider.read)).totalItems, 0)
    assert.equal((await list('', tokens.owner.read)).totalItems, 3, 'owners see every note, board-less ones too')
  } finally {
    await c.t.close()
  }
})

test('an admin may file a member’s board-less note in an admin folder; the member sees the id but not that folder', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    const adminFolder = (await t.req('POST', '/v1/note-folders', { token: tokens.admin.write, body: { name: 'Admin only' } })).body.note_folder
    const moved = await t.req('PATCH', `/v1/notes/${c.own.id}`, { token: tokens.admin.write, body: { folder: adminFolder.id } })
    assert.equal(moved.status, 200, moved.text)
    const seen = await t.req('GET', `/v1/notes/${c.own.id}?expand=folder`, { token: tokens.member.read })
    assert.equal(seen.body.note.folder, adminFolder.id)
    assert.equal(seen.body.note.expand.folder, null)
    assert.equal((await t.req('GET', `/v1/note-folders/${adminFolder.id}`, { token: tokens.member.read })).status, 404)
  } finally {
    await c.t.close()
  }
})

test('bulk-update: the notes the caller may change move, the others are listed with their reason', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    const second = (await t.req('POST', '/v1/notes', { token: tokens.member.write, body: { title: 'Second', board: c.board.id } })).body.note
    const theirs = (await t.req('POST', '/v1/notes', { token: tokens.outsider.write, body: { title: 'Theirs' } })).body.note
    const sub = (await t.req('POST', '/v1/note-folders', { token: tokens.member.write, body: { name: 'Sub', parent: c.folder.id } })).body.note_folder
    const r = await t.req('POST', '/v1/notes/bulk-update', {
      token: tokens.member.write,
      body: { notes: [c.note.id, second.id, c.own.id, theirs.id, 'nope', second.id], folder: sub.id },
    })
    assert.equal(r.status, 200, r.text)
    assert.equal(r.body.updated, 2)
    assert.deepEqual(
      r.body.failed.map((f: any) => [f.id, f.error.code]),
      [
        [c.own.id, 'validation_failed'],
        [theirs.id, 'not_found'],
        ['nope', 'not_found'],
      ],
    )
    assert.match(r.body.failed[0].error.message, /board-less/)
    assert.equal(r.body.failed[1].error.message, r.body.failed[2].error.message, 'an unseen note fails like a missing one')
    for (const id of [c.note.id, second.id]) assert.equal((await t.req('GET', `/v1/notes/${id}`, { token: tokens.member.read })).body.note.folder, sub.id)
    assert.equal((await t.req('GET', `/v1/notes/${theirs.id}`, { token: tokens.outsider.read })).body.note.folder, null, 'untouched')

    const off = await t.req('POST', '/v1/notes/bulk-update', { token: tokens.owner.write, body: { notes: [c.note.id, second.id], board: null } })
    assert.deepEqual(off.body, { updated: 2, failed: [] })
    assert.deepEqual(
      (await t.req('GET', `/v1/notes/${c.note.id}`, { token: tokens.member.read })).body.note,
      { ...c.note, folder: null, board: null, card: null, body: c.note.body, updated: c.note.updated },
      'board-less now, and no longer in a folder or on a card',
    )

    for (const [body, field] of [
      [{ notes: [c.note.id] }, '(root)'],
      [{ notes: [], board: null }, 'notes'],
      [{ notes: Array.from({ length: 501 }, (_, i) => `n${i}`), board: null }, 'notes'],
    ] as const) {
      const bad = await t.req('POST', '/v1/notes/bulk-update', { token: tokens.member.write, body })
      assert.equal(bad.status, 422, bad.text)
      assert.ok(
        bad.body.error.details.some((d: any) => d.path === field),
        JSON.stringify(bad.body.error.details),
      )
    }
    assert.equal((await t.req('POST', '/v1/notes/bulk-update', { token: tokens.member.read, body: { notes: [c.note.id], board: null } })).status, 403)
  } finally {
    await c.t.close()
  }
})

runScenarios<C>('note folders', fixture, [
  {
    name: 'a member creates a folder on a board',
    method: 'POST',
    path: '/v1/note-folders',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ name: 'Research', board: c.board.id }),
    status: 201,
    events: [],
    expect: (c: C) => ({ note_folder: { name: 'Research', parent: null, board: c.board.id, created_by: { id: c.member.id }, created: AT, updated: AT } }),
  },
  {
    name: "a sub-folder takes its parent's board",
    method: 'POST',
    path: '/v1/note-folders',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ name: 'Drafts', parent: c.folder.id }),
    status: 201,
    expect: (c: C) => ({ note_folder: { parent: c.folder.id, board: c.board.id } }),
  },
  {
    name: 'a parent on another board: 422 on parent',
    method: 'POST',
    path: '/v1/note-folders',
    token: (c) => c.tokens.owner.write,
    body: (c: C) => ({ name: 'x', board: c.board.id, parent: c.otherFolder.id }),
    status: 422,
    field: 'parent',
  },
  {
    name: 'a board-less folder under a board folder: 422 on parent',
    method: 'POST',
    path: '/v1/note-folders',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ name: 'x', board: null, parent: c.folder.id }),
    status: 422,
    field: 'parent',
  },
  {
    name: 'a parent the caller does not see: 404',
    method: 'POST',
    path: '/v1/note-folders',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => ({ name: 'x', parent: c.ownFolder.id }),
    status: 404,
  },
  {
    name: 'a name over 200 characters: 422',
    method: 'POST',
    path: '/v1/note-folders',
    token: (c) => c.tokens.member.write,
    body: { name: 'x'.repeat(201) },
    status: 422,
    field: 'name',
  },
  {
    name: 'a folder cannot go inside itself: 422 on parent',
    method: 'PATCH',
    path: (c) => `/v1/note-folders/${c.folder.id}`,
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ parent: c.folder.id }),
    status: 422,
    field: 'parent',
  },
  {
    name: 'moved under another folder of its board, and renamed',
    method: 'PATCH',
    path: (c) => `/v1/note-folders/${c.folder.id}`,
    token: (c) => c.tokens.admin.write,
    body: { name: 'Specifications', parent: null },
    status: 200,
    expect: (c: C) => ({ note_folder: { id: c.folder.id, name: 'Specifications', parent: null, board: c.board.id } }),
  },
  {
    name: 'a member of another board cannot see a board folder: 404',
    method: 'GET',
    path: (c) => `/v1/note-folders/${c.folder.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'another member cannot see a board-less folder: 404',
    method: 'GET',
    path: (c) => `/v1/note-folders/${c.ownFolder.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'an admin sees a board-less folder',
    method: 'GET',
    path: (c) => `/v1/note-folders/${c.ownFolder.id}?expand=board,parent`,
    token: (c) => c.tokens.admin.read,
    status: 200,
    expect: (c: C) => ({ note_folder: { id: c.ownFolder.id, board: null, expand: { board: null, parent: null } } }),
  },
  {
    name: 'a read-only token cannot create: 403',
    method: 'POST',
    path: '/v1/note-folders',
    token: (c) => c.tokens.member.read,
    body: { name: 'x' },
    status: 403,
  },
])

test('folders: no cycles through sub-folders; the list with filter, sort and expand', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    const make = async (name: string, parent: string) =>
      (await t.req('POST', '/v1/note-folders', { token: tokens.member.write, body: { name, parent } })).body.note_folder
    const child = await make('Child', c.folder.id)
    const grandchild = await make('Grandchild', child.id)
    for (const parent of [child.id, grandchild.id]) {
      const r = await t.req('PATCH', `/v1/note-folders/${c.folder.id}`, { token: tokens.member.write, body: { parent } })
      assert.equal(r.status, 422, r.text)
      assert.deepEqual(
        r.body.error.details.map((d: any) => d.path),
        ['parent'],
      )
    }
    assert.equal((await t.req('GET', `/v1/note-folders/${c.folder.id}`, { token: tokens.member.read })).body.note_folder.parent, null, 'unchanged')
    // Moving a sub-folder up is no cycle.
    assert.equal((await t.req('PATCH', `/v1/note-folders/${grandchild.id}`, { token: tokens.member.write, body: { parent: c.folder.id } })).status, 200)

    const list = async (query: string, token = tokens.member.read) => (await t.req('GET', `/v1/note-folders?${query}`, { token })).body
    const names = (page: { items: { name: string }[] }) => page.items.map((f) => f.name)
    assert.deepEqual(names(await list('')), ['Child', 'Grandchild', 'Mine', 'Specs'], 'by name')
    assert.deepEqual(names(await list('sort=-name')), ['Specs', 'Mine', 'Grandchild', 'Child'])
    assert.deepEqual(names(await list(`filter=${encodeURIComponent(`parent = "${c.folder.id}"`)}`)), ['Child', 'Grandchild'])
    assert.deepEqual(names(await list(`filter=${encodeURIComponent('board = null')}`)), ['Mine'])
    assert.deepEqual(names(await list(`filter=${encodeURIComponent('name ~ "child"')}`)), ['Child', 'Grandchild'])
    const expanded = await list(`expand=parent,board&filter=${encodeURIComponent(`id = "${child.id}"`)}`)
    assert.deepEqual([expanded.items[0].expand.parent.name, expanded.items[0].expand.board.name], ['Specs', 'Launch'])
    assert.deepEqual(names(await list('', tokens.outsider.read)), ['Theirs'])
    assert.equal((await list('', tokens.admin.read)).totalItems, 5, 'admins see every folder')
    assert.equal((await t.req('GET', '/v1/note-folders?expand=notes', { token: tokens.member.read })).status, 400)
  } finally {
    await c.t.close()
  }
})

test('deleting a folder deletes its sub-folders and leaves their notes in no folder', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    const child = (await t.req('POST', '/v1/note-folders', { token: tokens.member.write, body: { name: 'Child', parent: c.folder.id } })).body.note_folder
    const inChild = (await t.req('POST', '/v1/notes', { token: tokens.member.write, body: { title: 'Deep', folder: child.id, board: c.board.id } })).body.note
    assert.equal((await t.req('DELETE', `/v1/note-folders/${c.folder.id}`, { token: tokens.outsider.write })).status, 404)
    assert.equal((await t.req('DELETE', `/v1/note-folders/${c.folder.id}`, { token: tokens.member.read })).status, 403)
    assert.equal((await t.req('DELETE', `/v1/note-folders/${c.folder.id}`, { token: tokens.member.write })).status, 204)
    for (const id of [c.folder.id, child.id]) assert.equal((await t.req('GET', `/v1/note-folders/${id}`, { token: tokens.owner.read })).status, 404)
    for (const note of [c.note, inChild]) {
      const after = await t.req('GET', `/v1/notes/${note.id}`, { token: tokens.member.read })
      assert.equal(after.status, 200)
      assert.equal(after.body.note.folder, null)
      assert.equal(after.body.note.board, c.board.id)
    }
  } finally {
    await c.t.close()
  }
})

test('a card deleted for good leaves its notes on the board; a board deleted for good takes its notes and folders', async () => {
  const c = await fixture()
  try {
    const { t, tokens } = c
    assert.equal((await t.req('DELETE', `/v1/cards/${c.card.id}?permanent=true`, { token: tokens.member.write })).status, 204)
    const kept = await t.req('GET', `/v1/notes/${c.note.id}`, { token: tokens.member.read })
    assert.deepEqual([kept.body.note.card, kept.body.note.board, kept.body.note.folder], [null, c.board.id, c.folder.id])

    assert.equal((await t.req('DELETE', `/v1/boards/${c.board.id}?permanent=true`, { token: tokens.owner.full })).status, 204)
    const count = async (table: string) =>
      Number((await dbGet<{ n: number }>(t.deps.db, `SELECT count(*) AS n FROM ${table} WHERE board_id = ?`, c.board.id))!.n)
    assert.equal(await count('notes'), 0)
    assert.equal(await count('note_folders'), 0)
    assert.equal((await t.req('GET', `/v1/notes/${c.own.id}`, { token: tokens.member.read })).status, 200, 'board-less notes stay')
  } finally {
    await c.t.close()
  }
})

test('folders nest at most 16 deep, also when a folder with sub-folders moves', async () => {
  const s = await seededApp()
  try {
    const tok = s.tokens.member.write
    const folder = async (name: string, parent?: string) =>
      s.t.req('POST', '/v1/note-folders', { token: tok, body: { name, board: s.board.id, ...(parent && { parent }) } })
    let parent: string | undefined
    for (let depth = 1; depth <= 16; depth++) {
      const r = await folder(`level ${depth}`, parent)
      assert.equal(r.status, 201, r.text)
      parent = r.body.note_folder.id
    }
    const tooDeep = await folder('level 17', parent)
    assert.equal(tooDeep.status, 422)
    assert.equal(tooDeep.body.error.details[0].path, 'parent')
    const top = (await folder('top')).body.note_folder
    await folder('below top', top.id)
    const level15 = (await s.t.req('GET', `/v1/note-folders/${parent}`, { token: tok })).body.note_folder.parent
    assert.equal((await s.t.req('PATCH', `/v1/note-folders/${top.id}`, { token: tok, body: { parent: level15 } })).status, 422, 'two levels under level 15')
    const moved = await s.t.req('PATCH', `/v1/note-folders/${top.id}`, {
      token: tok,
      body: { parent: (await s.t.req('GET', `/v1/note-folders/${level15}`, { token: tok })).body.note_folder.parent },
    })
    assert.equal(moved.status, 200, 'two levels under level 14 make 16')
  } finally {
    await s.t.close()
  }
})
