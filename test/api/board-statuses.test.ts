// Board statuses through HTTP: a new board's statuses and bound lists, create/read/update/delete with the board's
// rights, the name clash, deleting with move_to, lists bound to a status, a category change carried to the lists and
// their cards, the card's `status` (view, filters, create, PATCH, bulk) with its card.updated events, and the clone.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbAll, dbRunMany } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  // The outsider is a member of another board only.
  const other = (await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })).body
  const statuses = (await t.req('GET', `/v1/board-statuses?board=${s.board.id}`, { token: tokens.member.read })).body.items
  const made = await t.req('POST', '/v1/board-statuses', { token: tokens.member.write, body: { board: s.board.id, name: 'In review', category: 'started' } })
  assert.equal(made.status, 201, made.text)
  return { ...s, other: other.board, otherStatuses: other.statuses, statuses, review: made.body.board_status }
}
type C = Awaited<ReturnType<typeof fixture>>

const post = (c: C, url: string, body: unknown, token = c.tokens.member.write) => c.t.req('POST', url, { token, body })
const patch = (c: C, url: string, body: unknown, token = c.tokens.member.write) => c.t.req('PATCH', url, { token, body })
const get = (c: C, url: string, token = c.tokens.member.read) => c.t.req('GET', url, { token })
/** card.updated changes without `position` (a card first in its list keeps position 1 when it moves). */
const lastChanges = async (c: C) => (await eventsNamed(c, 'card.updated')).at(-1).changes.filter((x: string) => x !== 'position')
const eventsNamed = async (c: C, name: string) =>
  (await dbAll<{ data: string }>(c.t.deps.db, 'SELECT data FROM events WHERE name = ? ORDER BY seq', name)).map((e) => JSON.parse(e.data))

runScenarios<C>('board statuses', fixture, [
  {
    name: 'a member creates a status after the board’s others, with its event',
    method: 'POST',
    path: '/v1/board-statuses',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ board: c.board.id, name: 'Blocked', category: 'started', color: '#ff0000' }),
    status: 201,
    events: ['board_status.created'],
    expect: (c: C) => ({ board_status: { board: c.board.id, name: 'Blocked', category: 'started', color: '#ff0000', position: 5 } }),
  },
  {
    name: 'a name that differs only in case is a 409',
    method: 'POST',
    path: '/v1/board-statuses',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ board: c.board.id, name: 'IN REVIEW', category: 'started' }),
    status: 409,
    events: [],
  },
  {
    name: 'another board may have the same name',
    method: 'POST',
    path: '/v1/board-statuses',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => ({ board: c.other.id, name: 'In review', category: 'started' }),
    status: 201,
  },
  {
    name: 'a missing category is named',
    method: 'POST',
    path: '/v1/board-statuses',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ board: c.board.id, name: 'x' }),
    status: 422,
    field: 'category',
  },
  {
    name: 'an unknown category is named',
    method: 'POST',
    path: '/v1/board-statuses',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ board: c.board.id, name: 'x', category: 'done' }),
    status: 422,
    field: 'category',
  },
  {
    name: 'a colour that is no hex colour is named',
    method: 'POST',
    path: '/v1/board-statuses',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ board: c.board.id, name: 'x', category: 'started', color: 'red' }),
    status: 422,
    field: 'color',
  },
  {
    name: 'a blank name is named',
    method: 'POST',
    path: '/v1/board-statuses',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ board: c.board.id, name: '  ', category: 'started' }),
    status: 422,
    field: 'name',
  },
  {
    name: 'a read-only token cannot create one',
    method: 'POST',
    path: '/v1/board-statuses',
    token: (c) => c.tokens.member.read,
    body: (c: C) => ({ board: c.board.id, name: 'x', category: 'started' }),
    status: 403,
  },
  {
    name: 'a read-only token cannot rename one',
    method: 'PATCH',
    path: (c) => `/v1/board-statuses/${c.review.id}`,
    token: (c) => c.tokens.owner.read,
    body: { name: 'x' },
    status: 403,
  },
  {
    name: 'a read-only token cannot delete one',
    method: 'DELETE',
    path: (c) => `/v1/board-statuses/${c.review.id}`,
    token: (c) => c.tokens.member.read,
    status: 403,
  },
  {
    name: 'a member of another board cannot create one on this board: 404',
    method: 'POST',
    path: '/v1/board-statuses',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => ({ board: c.board.id, name: 'x', category: 'started' }),
    status: 404,
  },
  {
    name: 'a member of another board cannot read one: 404',
    method: 'GET',
    path: (c) => `/v1/board-statuses/${c.review.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'a member of another board cannot change one: 404',
    method: 'PATCH',
    path: (c) => `/v1/board-statuses/${c.review.id}`,
    token: (c) => c.tokens.outsider.write,
    body: { name: 'x' },
    status: 404,
    events: [],
  },
  {
    name: 'a member of another board cannot delete one: 404',
    method: 'DELETE',
    path: (c) => `/v1/board-statuses/${c.review.id}`,
    token: (c) => c.tokens.outsider.write,
    status: 404,
  },
  {
    name: 'a member of another board lists only their board’s statuses',
    method: 'GET',
    path: '/v1/board-statuses?sort=position',
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 3, items: [{ board: c.other.id, name: 'To do' }, { name: 'In progress' }, { name: 'Done' }] }),
  },
  {
    name: 'a list by board with filter, sort and expand',
    method: 'GET',
    path: (c) => `/v1/board-statuses?board=${c.board.id}&filter=${encodeURIComponent('category = "started"')}&sort=-name&expand=board`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({
      totalItems: 2,
      items: [
        { name: 'In review', expand: { board: { id: c.board.id } } },
        { name: 'In progress', expand: { board: { id: c.board.id } } },
      ],
    }),
  },
  {
    name: 'an unknown sort field is a 400',
    method: 'GET',
    path: '/v1/board-statuses?sort=colour',
    token: (c) => c.tokens.member.read,
    status: 400,
  },
  {
    name: 'a rename onto another status’s name is a 409',
    method: 'PATCH',
    path: (c) => `/v1/board-statuses/${c.review.id}`,
    token: (c) => c.tokens.member.write,
    body: { name: 'to do' },
    status: 409,
    events: [],
  },
  {
    name: 'a rename that changes only the case of its own name is fine',
    method: 'PATCH',
    path: (c) => `/v1/board-statuses/${c.review.id}`,
    token: (c) => c.tokens.member.write,
    body: { name: 'In Review', color: '#00ff00' },
    status: 200,
    events: ['board_status.updated'],
    expect: { board_status: { name: 'In Review', color: '#00ff00', category: 'started' } },
  },
  {
    name: 'deleting a status a list is bound to is a 409',
    method: 'DELETE',
    path: (c) => `/v1/board-statuses/${c.statuses[0].id}`,
    token: (c) => c.tokens.member.write,
    status: 409,
    events: [],
  },
  {
    name: 'move_to a status of another board is named',
    method: 'DELETE',
    path: (c) => `/v1/board-statuses/${c.statuses[0].id}?move_to=${c.otherStatuses[0].id}`,
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'move_to',
  },
  {
    name: 'move_to the status itself is named',
    method: 'DELETE',
    path: (c) => `/v1/board-statuses/${c.statuses[0].id}?move_to=${c.statuses[0].id}`,
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'move_to',
  },
  {
    name: 'a status no list is bound to is deleted with its event',
    method: 'DELETE',
    path: (c) => `/v1/board-statuses/${c.review.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: ['board_status.deleted'],
  },
  {
    name: 'with move_to, its lists are bound to the other status and take its category',
    method: 'DELETE',
    path: (c) => `/v1/board-statuses/${c.statuses[0].id}?move_to=${c.review.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: ['board_status.deleted'],
    after: async (c) => {
      const list = (await get(c, `/v1/lists/${c.lists[0].id}`)).body.list
      assert.deepEqual([list.status, list.category], [c.review.id, 'started'])
    },
  },
])

test('a new board has a status per list, each list bound to it; cards show their list’s status and filter by it', async () => {
  const c = await fixture()
  try {
    assert.deepEqual(
      c.statuses.map((s: any) => [s.name, s.category, s.position, s.color]),
      [
        ['To do', 'unstarted', 1, null],
        ['In progress', 'started', 2, null],
        ['Done', 'completed', 3, null],
      ],
    )
    const lists = (await get(c, `/v1/lists?board=${c.board.id}`)).body.items
    assert.deepEqual(
      lists.map((l: any) => l.status),
      c.statuses.map((s: any) => s.id),
    )
    // Lists named alike share one status.
    const made = await post(c, '/v1/boards', { name: 'Twins', lists: ['Open', 'open', 'Closed'] })
    assert.equal(made.status, 201, made.text)
    assert.deepEqual(
      made.body.statuses.map((s: any) => s.name),
      ['Open', 'Closed'],
    )
    assert.equal(made.body.lists[0].status, made.body.lists[1].status)

    const card = (await post(c, '/v1/cards', { board: c.board.id, title: 'Ship' })).body.card
    assert.deepEqual(card.status, { id: c.statuses[0].id, name: 'To do', category: 'unstarted' })
    assert.equal((await get(c, `/v1/cards/${card.id}`)).body.card.status.name, 'To do')
    const unbound = (await post(c, '/v1/lists', { board: c.board.id, name: 'Icebox', category: 'backlog' })).body.list
    assert.equal(unbound.status, null)
    const iced = (await post(c, '/v1/cards', { board: c.board.id, title: 'Later', list: unbound.id })).body.card
    assert.equal(iced.status, null)
    const titles = async (filter: string) =>
      (await get(c, `/v1/cards?filter=${encodeURIComponent(filter)}`)).body.items
        .map((i: any) => i.title)
        .sort()
        .join(',')
    assert.equal(await titles(`status = "${c.statuses[0].id}"`), 'Ship')
    assert.equal(await titles('status.name = "to do"'), '')
    assert.equal(await titles('status.name ~ "to do"'), 'Ship')
    assert.equal(await titles('status.name = "To do"'), 'Ship')
    assert.equal(await titles('status = null'), 'Later')
    assert.equal(await titles('status.category = "unstarted"'), 'Ship')
  } finally {
    await c.t.close()
  }
})

test('a card given a status goes to the first list bound to it, with card.updated naming status; 422 when no list has it', async () => {
  const c = await fixture()
  try {
    const first = (await post(c, '/v1/lists', { board: c.board.id, name: 'Review A', status: c.review.id })).body.list
    assert.deepEqual([first.status, first.category], [c.review.id, 'started'])
    const second = (await post(c, '/v1/lists', { board: c.board.id, name: 'Review B', status: c.review.id })).body.list
    const card = (await post(c, '/v1/cards', { board: c.board.id, title: 'Ship' })).body.card

    const moved = await patch(c, `/v1/cards/${card.id}`, { status: c.review.id })
    assert.equal(moved.status, 200, moved.text)
    assert.equal(moved.body.card.list, first.id)
    assert.deepEqual(moved.body.card.status, { id: c.review.id, name: 'In review', category: 'started' })
    assert.deepEqual(await lastChanges(c), ['list', 'status'])
    // In the second list bound to it, the card stays there when given the status again.
    await c.t.req('POST', `/v1/cards/${card.id}/move`, { token: c.tokens.member.write, body: { list: second.id } })
    assert.deepEqual(await lastChanges(c), ['list'])
    const again = await patch(c, `/v1/cards/${card.id}`, { status: c.review.id, priority: 2 })
    assert.equal(again.body.card.list, second.id)
    assert.deepEqual(await lastChanges(c), ['priority'])
    // A move back to a list of another status changes the status, and says so.
    await c.t.req('POST', `/v1/cards/${card.id}/move`, { token: c.tokens.member.write, body: { list: c.lists[0].id } })
    assert.deepEqual(await lastChanges(c), ['list', 'status'])

    // The status of the done list completes the card (the completion rule).
    const done = await patch(c, `/v1/cards/${card.id}`, { status: c.statuses[2].id })
    assert.deepEqual([done.body.card.list, done.body.card.completed], [c.lists[2].id, true])

    // On create, and with a list that has it; a list of another status, a status without lists, another board's: 422.
    const made = await post(c, '/v1/cards', { board: c.board.id, title: 'Review me', status: c.review.id })
    assert.equal(made.status, 201, made.text)
    assert.equal(made.body.card.list, first.id)
    assert.equal((await post(c, '/v1/cards', { board: c.board.id, title: 'x', status: c.review.id, list: second.id })).status, 201)
    const lonely = (await post(c, '/v1/board-statuses', { board: c.board.id, name: 'Nowhere', category: 'backlog' })).body.board_status
    for (const [body, why] of [
      [{ status: c.review.id, list: c.lists[0].id }, 'a list of another status'],
      [{ status: lonely.id }, 'a status no list has'],
      [{ status: c.otherStatuses[0].id }, "another board's status"],
    ] as const) {
      const refused = await post(c, '/v1/cards', { board: c.board.id, title: 'x', ...body })
      assert.equal(refused.status, 422, why)
      assert.ok(
        refused.body.error.details.some((d: any) => d.path === 'status'),
        why,
      )
      assert.equal((await patch(c, `/v1/cards/${card.id}`, body)).status, 422, why)
    }

    // bulk-update-cards: each card goes to the status's list; one of another board fails alone.
    const mine = (await post(c, '/v1/cards', { board: c.board.id, title: 'bulk' })).body.card
    const theirs = (await post(c, '/v1/cards', { board: c.other.id, title: 'theirs' }, c.tokens.admin.write)).body.card
    const bulk = await post(c, '/v1/actions/bulk-update-cards', { cards: [mine.id, theirs.id], set: { status: c.review.id } }, c.tokens.admin.write)
    assert.equal(bulk.status, 200, bulk.text)
    assert.equal(bulk.body.updated, 1)
    assert.deepEqual(
      bulk.body.failed.map((f: any) => [f.id, f.error.code]),
      [[theirs.id, 'validation_failed']],
    )
    assert.equal((await get(c, `/v1/cards/${mine.id}`)).body.card.list, first.id)
  } finally {
    await c.t.close()
  }
})

test('a status’s new category carries to its lists and their cards; a list alone on its status takes it along', async () => {
  const c = await fixture()
  try {
    const card = (await post(c, '/v1/cards', { board: c.board.id, title: 'Doing', list: c.lists[1].id })).body.card
    const changed = await patch(c, `/v1/board-statuses/${c.statuses[1].id}`, { category: 'completed' })
    assert.equal(changed.status, 200, changed.text)
    assert.equal((await get(c, `/v1/lists/${c.lists[1].id}`)).body.list.category, 'completed')
    const now = (await get(c, `/v1/cards/${card.id}`)).body.card
    assert.deepEqual([now.completed, now.state, now.status.category], [true, 'completed', 'completed'])
    assert.equal((await eventsNamed(c, 'card.completed')).length, 1)

    // The list is alone on its status: its category change is the status's too.
    const back = await patch(c, `/v1/lists/${c.lists[1].id}`, { category: 'started' })
    assert.equal(back.status, 200, back.text)
    assert.equal((await get(c, `/v1/board-statuses/${c.statuses[1].id}`)).body.board_status.category, 'started')
    assert.equal((await get(c, `/v1/cards/${card.id}`)).body.card.completed, false)
    // Sharing its status, a list keeps the status's category; a status with another category is a 422.
    await post(c, '/v1/lists', { board: c.board.id, name: 'More', status: c.statuses[1].id })
    const refused = await patch(c, `/v1/lists/${c.lists[1].id}`, { category: 'backlog' })
    assert.equal(refused.status, 422)
    assert.equal(refused.body.error.details[0].path, 'category')
    const clash = await post(c, '/v1/lists', { board: c.board.id, name: 'x', status: c.review.id, category: 'backlog' })
    assert.equal(clash.status, 422)
    assert.equal(clash.body.error.details[0].path, 'category')
    const foreign = await patch(c, `/v1/lists/${c.lists[1].id}`, { status: c.otherStatuses[0].id })
    assert.equal(foreign.status, 422)
    assert.equal(foreign.body.error.details[0].path, 'status')
    // Rebinding a list gives it the new status's category, and each of its cards is announced; unbinding keeps the category.
    const todo = (await post(c, '/v1/cards', { board: c.board.id, title: 'Todo' })).body.card
    const rebound = (await patch(c, `/v1/lists/${c.lists[0].id}`, { status: c.review.id })).body.list
    assert.deepEqual([rebound.status, rebound.category], [c.review.id, 'started'])
    const announced = (await eventsNamed(c, 'card.updated')).at(-1)
    assert.deepEqual([announced.id, announced.changes, announced.list.category], [todo.id, ['status'], 'started'])
    assert.equal((await get(c, `/v1/cards/${todo.id}`)).body.card.status.name, 'In review')
    const unbound = (await patch(c, `/v1/lists/${c.lists[0].id}`, { status: null })).body.list
    assert.deepEqual([unbound.status, unbound.category], [null, 'started'])
  } finally {
    await c.t.close()
  }
})

test('a clone copies the statuses with new ids and binds its lists to the copies', async () => {
  const c = await fixture()
  try {
    await post(c, '/v1/lists', { board: c.board.id, name: 'Review', status: c.review.id })
    const cloned = await post(c, `/v1/boards/${c.board.id}/clone`, { name: 'Copy' })
    assert.equal(cloned.status, 201, cloned.text)
    const { board, lists, statuses } = cloned.body
    assert.deepEqual(
      statuses.map((s: any) => [s.name, s.category, s.board]),
      [
        ['To do', 'unstarted', board.id],
        ['In progress', 'started', board.id],
        ['Done', 'completed', board.id],
        ['In review', 'started', board.id],
      ],
    )
    const old = new Set([...c.statuses.map((s: any) => s.id), c.review.id])
    assert.ok(statuses.every((s: any) => !old.has(s.id)))
    const byId = new Map(statuses.map((s: any) => [s.id, s.name]))
    assert.deepEqual(
      lists.map((l: any) => [l.name, byId.get(l.status)]),
      [
        ['To do', 'To do'],
        ['In progress', 'In progress'],
        ['Done', 'Done'],
        ['Review', 'In review'],
      ],
    )
    assert.equal((await get(c, `/v1/board-statuses?board=${board.id}`, c.tokens.member.write)).body.totalItems, 4)
  } finally {
    await c.t.close()
  }
})

test('a rename or a new category announces every card of its lists (card.updated naming status) in its transaction; a colour does not', async () => {
  const c = await fixture()
  try {
    // The To do status's list gets more cards than one chunk of announcements (250), one of them in the trash.
    const list = c.lists[0].id
    await dbRunMany(
      c.t.deps.db,
      "INSERT INTO cards (id, board_id, list_id, key_num, key, title, position, trashed, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'x', ?, ?, ?, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')",
      Array.from({ length: 261 }, (_, n) => [
        `st${String(n).padStart(4, '0')}`,
        c.board.id,
        list,
        1000 + n,
        `LCH-${1000 + n}`,
        n + 1,
        n === 7 ? 1 : 0,
        c.member.id,
      ]),
    )
    const since = async () => Number((await dbAll<{ n: number }>(c.t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))[0].n)
    const after = (seq: number) =>
      dbAll<{ name: string; data: string; created_at: string }>(c.t.deps.db, 'SELECT name, data, created_at FROM events WHERE seq > ? ORDER BY seq', seq)

    let seq = await since()
    const renamed = await patch(c, `/v1/board-statuses/${c.statuses[0].id}`, { name: 'Ready' })
    assert.equal(renamed.status, 200, renamed.text)
    const events = await after(seq)
    assert.equal(events[0].name, 'board_status.updated')
    const cards = events.slice(1).map((e) => ({ ...JSON.parse(e.data), event: e.name }))
    assert.equal(cards.length, 260, 'every card but the trashed one')
    assert.ok(cards.every((e) => e.event === 'card.updated' && e.changes.join() === 'status' && e.list.id === list))
    assert.equal(new Set(cards.map((e) => e.id)).size, 260)
    assert.ok(!cards.some((e) => e.id === 'st0007'), 'a card in the trash is not announced')
    assert.equal(new Set(events.map((e) => e.created_at)).size, 1, 'written at the moment of the rename')
    assert.equal((await get(c, '/v1/cards/st0001')).body.card.status.name, 'Ready')

    // A colour or a position changes nothing a card shows.
    seq = await since()
    assert.equal((await patch(c, `/v1/board-statuses/${c.statuses[0].id}`, { color: '#123456', position: 9 })).status, 200)
    assert.deepEqual(
      (await after(seq)).map((e) => e.name),
      ['board_status.updated'],
    )
    // The same name again is no rename.
    seq = await since()
    assert.equal((await patch(c, `/v1/board-statuses/${c.statuses[0].id}`, { name: 'Ready' })).status, 200)
    assert.deepEqual(
      (await after(seq)).map((e) => e.name),
      ['board_status.updated'],
    )

    // A new category: the cards are announced with the list's new category, then settle by the completion rule.
    seq = await since()
    const moved = await patch(c, `/v1/board-statuses/${c.statuses[0].id}`, { category: 'started' })
    assert.equal(moved.status, 200, moved.text)
    const next = (await after(seq)).map((e) => ({ ...JSON.parse(e.data), event: e.name }))
    assert.equal(next[0].event, 'board_status.updated')
    const announced = next.slice(1)
    assert.equal(announced.length, 260)
    assert.ok(announced.every((e) => e.event === 'card.updated' && e.changes.join() === 'status' && e.list.category === 'started'))
    // A member of another board, a read token: no rename, no announcement.
    seq = await since()
    assert.equal((await patch(c, `/v1/board-statuses/${c.statuses[0].id}`, { name: 'x' }, c.tokens.outsider.write)).status, 404)
    assert.equal((await patch(c, `/v1/board-statuses/${c.statuses[0].id}`, { name: 'x' }, c.tokens.member.read)).status, 403)
    assert.deepEqual(await after(seq), [])
  } finally {
    await c.t.close()
  }
})
