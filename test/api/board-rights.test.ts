// Board rights (issue 9, class 5): board roles, who manages a board, the last board admin, owners and admins on every
// board, and the board trash (restore, permanent delete, the purge after 30 days).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbAll, dbRun, dbRunMany } from '../helpers/db.js'
import { assertErrorShape } from '../helpers/scenarios.js'
import { Housekeeping } from '../../src/housekeeping.js'

type Fixture = Awaited<ReturnType<typeof seededApp>>
const DAY = 24 * 3600_000

const members = async (c: Fixture, board: string) =>
  Object.fromEntries(
    ((await c.t.req('GET', `/v1/boards/${board}/members`, { token: c.tokens.owner.read })).body.items as { id: string; board_role: string }[]).map((m) => [
      m.id,
      m.board_role,
    ]),
  )

const refused = (r: { status: number; body: any; text: string }, status: number, what: string) => {
  assert.equal(r.status, status, `${what}: ${r.text}`)
  assertErrorShape(r.body)
}

test('a board member who is not its admin cannot remove others (the creator, the owner), add, rename or trash; they may leave', async () => {
  const c = await seededApp()
  try {
    const tok = c.tokens.member.write
    const b = c.board.id
    assert.deepEqual(await members(c, b), { [c.owner.id]: 'admin', [c.admin.id]: 'member', [c.member.id]: 'member' }, 'the creator is admin')
    refused(await c.t.req('DELETE', `/v1/boards/${b}/members/${c.owner.id}`, { token: tok }), 403, 'removing the creator and workspace owner')
    refused(await c.t.req('DELETE', `/v1/boards/${b}/members/${c.admin.id}`, { token: tok }), 403, 'removing another member')
    refused(await c.t.req('POST', `/v1/boards/${b}/members`, { token: tok, body: { user: c.outsider.id } }), 403, 'adding')
    refused(await c.t.req('PATCH', `/v1/boards/${b}/members/${c.member.id}`, { token: tok, body: { role: 'admin' } }), 403, 'making oneself admin')
    refused(await c.t.req('PATCH', `/v1/boards/${b}`, { token: tok, body: { name: 'Mine now' } }), 403, 'renaming')
    refused(await c.t.req('PATCH', `/v1/boards/${b}`, { token: tok, body: { key_prefix: 'MINE' } }), 403, 'changing the prefix')
    refused(await c.t.req('DELETE', `/v1/boards/${b}`, { token: tok }), 403, 'trashing')
    refused(await c.t.req('DELETE', `/v1/boards/${b}?permanent=true`, { token: tok }), 403, 'deleting for good')
    assert.deepEqual(await members(c, b), { [c.owner.id]: 'admin', [c.admin.id]: 'member', [c.member.id]: 'member' }, 'nothing changed')
    // Working on the board's content stays open to every member with a write token.
    assert.equal((await c.t.req('POST', '/v1/cards', { token: tok, body: { board: b, title: 'still works' } })).status, 201)
    assert.equal((await c.t.req('POST', `/v1/boards/${b}/clone`, { token: tok, body: { name: 'My copy' } })).status, 201)
    // Leaving needs no right.
    assert.equal((await c.t.req('DELETE', `/v1/boards/${b}/members/${c.member.id}`, { token: tok })).status, 204)
    assert.equal((await c.t.req('GET', `/v1/boards/${b}`, { token: tok })).status, 404)
  } finally {
    await c.t.close()
  }
})

test('board admins manage their board; the last board admin cannot leave, be removed or become a member', async () => {
  const c = await seededApp()
  try {
    const b = c.board.id
    const mine = (await c.t.req('POST', '/v1/boards', { token: c.tokens.member.write, body: { name: 'Member board' } })).body.board.id as string
    const tok = c.tokens.member.write // the creator, so the board's admin, though only a member of the workspace
    assert.deepEqual(await members(c, mine), { [c.member.id]: 'admin' })
    for (const [what, r] of [
      ['leaving', await c.t.req('DELETE', `/v1/boards/${mine}/members/${c.member.id}`, { token: tok })],
      ['removed by the workspace owner', await c.t.req('DELETE', `/v1/boards/${mine}/members/${c.member.id}`, { token: c.tokens.owner.write })],
      ['demoted by itself', await c.t.req('PATCH', `/v1/boards/${mine}/members/${c.member.id}`, { token: tok, body: { role: 'member' } })],
      [
        'demoted by a workspace admin',
        await c.t.req('PATCH', `/v1/boards/${mine}/members/${c.member.id}`, { token: c.tokens.admin.write, body: { role: 'member' } }),
      ],
    ] as const) {
      refused(r, 409, `the last admin ${what}`)
      assert.match(r.body.error.message, /last admin/)
    }
    // The board admin adds, promotes, renames; then the first admin may go.
    const added = await c.t.req('POST', `/v1/boards/${mine}/members`, { token: tok, body: { user: c.outsider.id, role: 'admin' } })
    assert.equal(added.status, 201, added.text)
    assert.equal(added.body.user.board_role, 'admin')
    const patched = await c.t.req('PATCH', `/v1/boards/${mine}/members/${c.admin.id}`, { token: tok, body: { role: 'admin' } })
    refused(patched, 404, 'a role for a non-member')
    assert.equal((await c.t.req('PATCH', `/v1/boards/${mine}`, { token: tok, body: { name: 'Renamed by its admin' } })).status, 200)
    assert.equal((await c.t.req('DELETE', `/v1/boards/${mine}/members/${c.member.id}`, { token: tok })).status, 204)
    assert.deepEqual(await members(c, mine), { [c.outsider.id]: 'admin' })
    refused(
      await c.t.req('PATCH', `/v1/boards/${mine}/members/${c.outsider.id}`, { token: c.tokens.outsider.write, body: { role: 'bogus' } }),
      422,
      'an unknown role',
    )
    // On the seeded board the owner is the only board admin: a workspace admin makes a member admin, then demotes the owner.
    const promoted = await c.t.req('PATCH', `/v1/boards/${b}/members/${c.member.id}`, { token: c.tokens.admin.write, body: { role: 'admin' } })
    assert.equal(promoted.status, 200, promoted.text)
    assert.equal(promoted.body.user.board_role, 'admin')
    assert.equal((await c.t.req('PATCH', `/v1/boards/${b}/members/${c.owner.id}`, { token: c.tokens.member.write, body: { role: 'member' } })).status, 200)
    assert.deepEqual(await members(c, b), { [c.owner.id]: 'member', [c.admin.id]: 'member', [c.member.id]: 'admin' })
  } finally {
    await c.t.close()
  }
})

test('two board admins leaving at once: one of them stays', async () => {
  const c = await seededApp()
  try {
    const b = c.board.id
    assert.equal((await c.t.req('PATCH', `/v1/boards/${b}/members/${c.member.id}`, { token: c.tokens.owner.write, body: { role: 'admin' } })).status, 200)
    const [a, m] = await Promise.all([
      c.t.req('DELETE', `/v1/boards/${b}/members/${c.owner.id}`, { token: c.tokens.owner.write }),
      c.t.req('DELETE', `/v1/boards/${b}/members/${c.member.id}`, { token: c.tokens.member.write }),
    ])
    assert.deepEqual([a.status, m.status].sort(), [204, 409])
    assert.equal(Object.values(await members(c, b)).filter((r) => r === 'admin').length, 1)
  } finally {
    await c.t.close()
  }
})

test('owners and admins see and manage every board, also one they are not on and one with no members', async () => {
  const c = await seededApp()
  try {
    const board = (await c.t.req('POST', '/v1/boards', { token: c.tokens.outsider.write, body: { name: 'Private' } })).body.board.id as string
    const card = (await c.t.req('POST', '/v1/cards', { token: c.tokens.outsider.write, body: { board, title: 'secret plan' } })).body.card
    // A board with no members at all (an older database's, or its last member's account gone): only SQL can make one now.
    await dbRun(c.t.deps.db, 'DELETE FROM board_members WHERE board_id = ?', board)
    for (const who of ['owner', 'admin'] as const) {
      const tok = c.tokens[who].write
      assert.equal((await c.t.req('GET', `/v1/boards/${board}`, { token: tok })).status, 200, who)
      const listed = (await c.t.req('GET', '/v1/boards', { token: tok })).body.items.map((i: { id: string }) => i.id)
      assert.ok(listed.includes(board) && listed.includes(c.board.id), who)
      assert.equal((await c.t.req('GET', `/v1/cards/${card.id}`, { token: tok })).status, 200, who)
      const found = await c.t.req('GET', `/v1/cards?filter=${encodeURIComponent(`title ~ "secret"`)}`, { token: tok })
      assert.deepEqual(
        found.body.items.map((i: { id: string }) => i.id),
        [card.id],
        who,
      )
      assert.equal((await c.t.req('GET', `/v1/lists?board=${board}`, { token: tok })).body.totalItems, 3, who)
      assert.equal((await c.t.req('GET', `/v1/boards/${board}/members`, { token: tok })).body.totalItems, 0, who)
      assert.equal((await c.t.req('POST', '/v1/cards', { token: tok, body: { board, title: `by ${who}` } })).status, 201, who)
      assert.equal((await c.t.req('PATCH', `/v1/boards/${board}`, { token: tok, body: { description: who } })).status, 200, who)
    }
    // The first member of a board with no admin becomes its admin.
    const added = await c.t.req('POST', `/v1/boards/${board}/members`, { token: c.tokens.admin.write, body: { user: c.member.id } })
    assert.equal(added.status, 201, added.text)
    assert.equal(added.body.user.board_role, 'admin')
    const extra = await c.t.user('member')
    const second = await c.t.req('POST', `/v1/boards/${board}/members`, { token: c.tokens.member.write, body: { user: extra.id } })
    assert.equal(second.body.user.board_role, 'member')
    assert.equal((await c.t.req('GET', `/v1/boards/${board}`, { token: c.tokens.member.read })).status, 200)
    // A workspace member still sees only their boards.
    assert.equal((await c.t.req('GET', `/v1/cards/${card.id}`, { token: c.tokens.outsider.read })).status, 404)
    // A workspace admin who is not on the board works there with a read token too, but only reads.
    refused(await c.t.req('PATCH', `/v1/boards/${board}`, { token: c.tokens.admin.read, body: { name: 'x' } }), 403, 'a read token')
  } finally {
    await c.t.close()
  }
})

test('the board trash: everything on the board is hidden and frozen until restored; permanent deletion is for owners and admins', async () => {
  const c = await seededApp({ allowPrivateTargets: 'true' })
  try {
    const b = c.board.id
    const tok = c.tokens.member.write
    const card = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: b, title: 'kept through the trash' } })).body.card
    const tag = (await c.t.req('POST', '/v1/tags', { token: tok, body: { board: b, name: 'urgent' } })).body.tag
    // Events of the board (the audit log's entries, audit.entry, are workspace-wide).
    const boardEvents = "SELECT id FROM events WHERE name <> 'audit.entry'"
    const eventsBefore = (await dbAll(c.t.deps.db, boardEvents)).length
    assert.equal((await c.t.req('DELETE', `/v1/boards/${b}`, { token: c.tokens.owner.write })).status, 204)
    const trashedAt = new Date(c.t.clock.now()).toISOString()
    c.t.clock.advance(60_000)
    assert.equal((await c.t.req('DELETE', `/v1/boards/${b}`, { token: c.tokens.admin.write })).status, 204, 'trashing again is a no-op')
    const inTrash = (await c.t.req('GET', `/v1/boards/${b}`, { token: c.tokens.member.read })).body.board
    assert.deepEqual([inTrash.trashed, inTrash.trashed_at, inTrash.purge_at], [true, trashedAt, new Date(Date.parse(trashedAt) + 30 * DAY).toISOString()])
    assert.equal((await dbAll(c.t.deps.db, boardEvents)).length, eventsBefore, 'trashing deletes nothing, so announces nothing')
    assert.deepEqual(
      (await dbAll<{ action: string }>(c.t.deps.db, 'SELECT action FROM audit_log WHERE target_id = ?', b)).map((e) => e.action),
      ['board.trashed'],
      'the audit log has it, once',
    )
    // Listed in the trash only, for its members and for owners and admins; gettable with trashed: true.
    for (const who of ['member', 'admin'] as const) {
      const token = c.tokens[who].read
      assert.equal((await c.t.req('GET', '/v1/boards', { token })).body.totalItems, 0, who)
      const trash = await c.t.req('GET', '/v1/boards?trashed=true', { token })
      assert.deepEqual(
        trash.body.items.map((i: { id: string; trashed: boolean }) => [i.id, i.trashed]),
        [[b, true]],
        who,
      )
    }
    assert.equal((await c.t.req('GET', '/v1/boards?trashed=true', { token: c.tokens.outsider.read })).body.totalItems, 0)
    // Its cards, lists and tags are out of sight, and nothing on it can change.
    const gone = async (method: string, path: string, body?: unknown) => refused(await c.t.req(method, path, { token: tok, body }), 404, `${method} ${path}`)
    await gone('GET', `/v1/cards/${card.id}`)
    await gone('PATCH', `/v1/cards/${card.id}`, { title: 'changed' })
    await gone('POST', '/v1/cards', { board: b, title: 'new' })
    await gone('GET', `/v1/lists/${c.lists[0].id}`)
    await gone('GET', `/v1/tags/${tag.id}`)
    await gone('PATCH', `/v1/tags/${tag.id}`, { name: 'later' })
    await gone('DELETE', `/v1/tags/${tag.id}`)
    await gone('POST', '/v1/lists', { board: b, name: 'More' })
    await gone('PATCH', `/v1/lists/${c.lists[0].id}`, { name: 'Renamed' })
    for (const path of ['/v1/cards', `/v1/cards?board=${b}`, `/v1/cards?filter=${encodeURIComponent(`key = "${card.key}"`)}`, '/v1/lists', '/v1/tags'])
      assert.equal((await c.t.req('GET', path, { token: c.tokens.owner.read })).body.totalItems, 0, path)
    // Nothing moves in from elsewhere either: the trashed board's lists answer like unknown ones.
    const other = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Elsewhere' } })).body.board.id as string
    const outside = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: other, title: 'outside' } })).body.card.id as string
    refused(await c.t.req('POST', `/v1/cards/${outside}/move`, { token: tok, body: { list: c.lists[0].id, board: b } }), 422, 'moving into the trash')
    const shared = await c.t.req('GET', '/v1/users?expand=boards', { token: tok })
    const meInList = shared.body.items.find((u: { id: string }) => u.id === c.member.id)
    assert.deepEqual(
      meInList.expand.boards.map((x: { id: string }) => x.id),
      [other],
      'users?expand=boards leaves out the board in the trash',
    )
    const sub = await c.t.req('POST', '/v1/webhooks', {
      token: tok,
      body: { name: 'w', url: 'http://127.0.0.1:9/hook', events: ['card.*'], boards: [b], active: false },
    })
    refused(sub, 422, 'a subscription to a board in the trash')
    assert.equal(sub.body.error.details[0].path, 'boards.0')
    for (const [method, path, body] of [
      ['PATCH', `/v1/boards/${b}`, { name: 'x' }],
      ['POST', `/v1/boards/${b}/members`, { user: c.outsider.id }],
      ['DELETE', `/v1/boards/${b}/members/${c.admin.id}`, undefined],
      ['POST', `/v1/boards/${b}/clone`, {}],
    ] as const) {
      const r = await c.t.req(method, path, { token: c.tokens.owner.write, body })
      refused(r, 409, `${method} ${path} on a board in the trash`)
      assert.match(r.body.error.message, /restore/)
    }
    // Leaving is still open.
    assert.equal((await c.t.req('DELETE', `/v1/boards/${b}/members/${c.admin.id}`, { token: c.tokens.admin.write })).status, 204)
    // Restoring: board admins and workspace owners and admins; the board comes back as it was.
    refused(await c.t.req('POST', `/v1/boards/${b}/restore`, { token: tok }), 403, 'a board member restoring')
    refused(await c.t.req('POST', `/v1/boards/${b}/restore`, { token: c.tokens.outsider.write }), 404, 'an outsider restoring')
    const restored = await c.t.req('POST', `/v1/boards/${b}/restore`, { token: c.tokens.admin.write })
    assert.equal(restored.status, 200, restored.text)
    assert.deepEqual([restored.body.board.trashed, restored.body.board.trashed_at], [false, null])
    assert.equal((await c.t.req('POST', `/v1/boards/${b}/restore`, { token: c.tokens.owner.write })).status, 200, 'restoring again is a no-op')
    assert.equal((await c.t.req('GET', `/v1/cards/${card.id}`, { token: tok })).body.card.key, card.key)
    // For good: not for a board admin who is a workspace member; owners and admins, also from the trash.
    const mine = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Member board' } })).body.board.id as string
    refused(await c.t.req('DELETE', `/v1/boards/${mine}?permanent=true`, { token: tok }), 403, 'a board admin deleting for good')
    assert.equal((await c.t.req('DELETE', `/v1/boards/${mine}`, { token: tok })).status, 204, 'a board admin trashing')
    assert.equal((await c.t.req('DELETE', `/v1/boards/${mine}?permanent=true`, { token: c.tokens.admin.write })).status, 204)
    assert.equal((await c.t.req('DELETE', `/v1/boards/${b}?permanent=true`, { token: c.tokens.owner.write })).status, 204)
    for (const id of [mine, b]) refused(await c.t.req('GET', `/v1/boards/${id}`, { token: c.tokens.owner.read }), 404, 'deleted for good')
    const deleted = await dbAll<{ data: string }>(c.t.deps.db, "SELECT data FROM events WHERE name = 'card.deleted'")
    assert.deepEqual(
      deleted.map((e) => [JSON.parse(e.data).id, JSON.parse(e.data).permanent]),
      [[card.id, true]],
    )
  } finally {
    await c.t.close()
  }
})

test('a board in the trash is deleted for good 30 days later, by whoever put it there; a restored one stays', async () => {
  const c = await seededApp()
  const logged: string[] = []
  const housekeeping = new Housekeeping(c.t.deps, (msg, err) => logged.push(`${msg}: ${String(err)}`))
  try {
    const tok = c.tokens.member.write
    const make = async (name: string) => {
      const board = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name } })).body.board as { id: string; key_prefix: string }
      const cards = []
      for (let i = 0; i < 3; i++)
        cards.push((await c.t.req('POST', '/v1/cards', { token: tok, body: { board: board.id, title: `${name} ${i}` } })).body.card.id)
      return { ...board, cards }
    }
    const old = await make('Old')
    const kept = await make('Kept')
    for (const b of [old, kept]) assert.equal((await c.t.req('DELETE', `/v1/boards/${b.id}`, { token: tok })).status, 204)
    c.t.clock.advance(30 * DAY - 60_000)
    await housekeeping.runOnce()
    assert.equal((await c.t.req('GET', `/v1/boards/${old.id}`, { token: tok })).body.board.trashed, true, 'a minute before the 30 days')
    assert.equal((await c.t.req('POST', `/v1/boards/${kept.id}/restore`, { token: tok })).status, 200)
    c.t.clock.advance(2 * 60_000)
    const late = await c.t.req('POST', `/v1/boards/${old.id}/restore`, { token: tok })
    refused(late, 409, 'restoring past purge_at, before the purge ran')
    assert.match(late.body.error.message, /deleted for good/)
    await housekeeping.runOnce()
    refused(await c.t.req('GET', `/v1/boards/${old.id}`, { token: c.tokens.owner.read }), 404, 'purged')
    assert.equal((await c.t.req('GET', `/v1/boards/${kept.id}`, { token: tok })).body.board.trashed, false)
    assert.equal((await c.t.req('GET', `/v1/cards?board=${kept.id}`, { token: tok })).body.totalItems, 3)
    const events = await dbAll<{ name: string; data: string }>(
      c.t.deps.db,
      "SELECT name, data FROM events WHERE name IN ('card.deleted', 'list.deleted') AND board_id = ? ORDER BY seq",
      old.id,
    )
    assert.deepEqual(events.map((e) => e.name).sort(), ['card.deleted', 'card.deleted', 'card.deleted', 'list.deleted', 'list.deleted', 'list.deleted'])
    for (const e of events) assert.equal(JSON.parse(e.data).actor.id, c.member.id, 'the events name who trashed the board')
    assert.deepEqual((await dbAll(c.t.deps.db, 'SELECT id FROM cards WHERE board_id = ?', old.id)).length, 0)
    // The prefix stays reserved after the purge.
    const again = await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Again', key_prefix: old.key_prefix } })
    refused(again, 422, "a purged board's prefix")
    await housekeeping.runOnce()
    assert.equal((await c.t.req('GET', `/v1/boards/${kept.id}`, { token: tok })).status, 200, 'a pass with nothing due changes nothing')
    assert.deepEqual(logged, [])
  } finally {
    try {
      await housekeeping.stop()
    } finally {
      await c.t.close()
    }
  }
})

test('the purge takes every due board (more than one batch) and every card (more than one chunk), and pauses what only they fed', async () => {
  const c = await seededApp({ allowPrivateTargets: 'true' })
  const logged: string[] = []
  const housekeeping = new Housekeeping(c.t.deps, (msg, err) => logged.push(`${msg}: ${String(err)}`))
  try {
    const tok = c.tokens.member.write
    const boards: string[] = []
    for (let i = 0; i < 23; i++) boards.push((await c.t.req('POST', '/v1/boards', { token: tok, body: { name: `Board ${i}` } })).body.board.id)
    const big = (await c.t.req('GET', `/v1/lists?board=${boards[0]}`, { token: tok })).body.items[0].id as string
    await dbRunMany(
      c.t.deps.db,
      "INSERT INTO cards (id, board_id, list_id, key_num, key, title, position, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'x', ?, ?, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')",
      Array.from({ length: 120 }, (_, n) => [`big${n}`, boards[0], big, n + 1, `BIG-${n + 1}`, n + 1, c.member.id]),
    )
    // Two cards of another board with comments: each card's comment.deleted events come just before its card.deleted.
    const talked: string[] = []
    for (const title of ['talked 1', 'talked 2']) {
      const card = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: boards[1], title } })).body.card.id
      for (const body of ['first', 'second']) assert.equal((await c.t.req('POST', '/v1/comments', { token: tok, body: { card, body } })).status, 201)
      talked.push(card)
    }
    const sub = await c.t.req('POST', '/v1/webhooks', {
      token: tok,
      body: { name: 'only board 0', url: 'http://127.0.0.1:9/hook', events: ['card.*'], boards: [boards[0]], active: false },
    })
    assert.equal(sub.status, 201, sub.text)
    const activated = await c.t.req('PATCH', `/v1/webhooks/${sub.body.webhook.id}`, { token: tok, body: { active: true } })
    assert.equal(activated.body.webhook.active, true, activated.text)
    for (const id of boards) assert.equal((await c.t.req('DELETE', `/v1/boards/${id}`, { token: tok })).status, 204)
    c.t.clock.advance(30 * DAY)
    await housekeeping.runOnce()
    assert.deepEqual(logged, [])
    assert.equal((await c.t.req('GET', '/v1/boards?trashed=true', { token: c.tokens.owner.read })).body.totalItems, 0)
    assert.equal((await dbAll(c.t.deps.db, 'SELECT id FROM cards WHERE board_id = ?', boards[0])).length, 0)
    assert.equal((await dbAll(c.t.deps.db, "SELECT id FROM events WHERE name = 'card.deleted' AND board_id = ?", boards[0])).length, 120)
    const gone = await dbAll<{ name: string; data: string }>(
      c.t.deps.db,
      "SELECT name, data FROM events WHERE board_id = ? AND name IN ('card.deleted', 'comment.deleted') ORDER BY seq",
      boards[1],
    )
    assert.deepEqual(
      gone.map((e) => [e.name, JSON.parse(e.data).card?.id ?? JSON.parse(e.data).id]),
      talked.flatMap((id) => [
        ['comment.deleted', id],
        ['comment.deleted', id],
        ['card.deleted', id],
      ]),
    )
    assert.equal((await c.t.req('GET', `/v1/webhooks/${sub.body.webhook.id}`, { token: tok })).body.webhook.active, false)
  } finally {
    try {
      await housekeeping.stop()
    } finally {
      await c.t.close()
    }
  }
})
