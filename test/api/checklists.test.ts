// Checklists through HTTP: creating with items, reading and writing with the card's rights, ticking with who and
// when, reordering, the list's filter, sort and expand, the limits, the events as a local receiver gets them, the
// card's checklist_progress and expand=checklists, and the cascade of a card deleted for good.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Actor } from '../../src/access/roles.js'
import { publicBaseUrl } from '../../src/config.js'
import { updateChecklistItem } from '../../src/resources/checklists/service.js'
import { seededApp, type TestApp } from '../helpers/app.js'
import { dbGet } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'
import { createSub, webhookApp } from '../webhooks/fixtures.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  // The outsider is a member of another board only.
  const other = (await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })).body.board
  const card = (await t.req('POST', '/v1/cards', { token: tokens.member.write, body: { board: s.board.id, title: 'Ship it' } })).body.card
  const made = await t.req('POST', '/v1/checklists', { token: tokens.member.write, body: { card: card.id, title: 'Steps', items: ['Write', 'Test', 'Ship'] } })
  assert.equal(made.status, 201, made.text)
  const list = made.body.checklist
  const second = (await t.req('POST', '/v1/checklists', { token: tokens.member.write, body: { card: card.id, title: 'Later', items: ['Party'] } })).body
    .checklist
  const elsewhere = (await t.req('POST', '/v1/cards', { token: tokens.outsider.write, body: { board: other.id, title: 'Theirs' } })).body.card
  return { ...s, other, card, list, second, item: list.items[0], elsewhere }
}
type C = Awaited<ReturnType<typeof fixture>>

const items = (c: C) => `/v1/checklists/${c.list.id}/items`
const item = (c: C) => `/v1/checklists/${c.list.id}/items/${c.item.id}`

runScenarios<C>('checklists', fixture, [
  {
    name: 'a member creates a checklist with items, after the card’s others; nothing is emitted',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id, title: '  Release  ', items: ['Tag', 'Announce'] }),
    status: 201,
    events: [],
    expect: (c: C) => ({
      checklist: {
        card: c.card.id,
        title: 'Release',
        position: 3,
        items: [
          { text: 'Tag', completed: false, completed_at: null, completed_by: null, position: 1 },
          { text: 'Announce', completed: false, completed_at: null, completed_by: null, position: 2 },
        ],
        created_by: { id: c.member.id },
        created: '2026-11-21T12:00:00.000Z',
        updated: '2026-11-21T12:00:00.000Z',
      },
    }),
  },
  {
    name: 'without items, a checklist starts empty',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id, title: 'Empty' }),
    status: 201,
    expect: { checklist: { title: 'Empty', items: [] } },
  },
  {
    name: 'an admin who is not on the board writes (admins see every board)',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.admin.write,
    body: (c: C) => ({ card: c.elsewhere.id, title: 'Admin’s' }),
    status: 201,
    expect: (c: C) => ({ checklist: { created_by: { id: c.admin.id } } }),
  },
  {
    name: 'an admin reads it',
    method: 'GET',
    path: (c) => `/v1/checklists/${c.list.id}`,
    token: (c) => c.tokens.admin.read,
    status: 200,
    expect: (c: C) => ({ checklist: { id: c.list.id, items: [{ text: 'Write' }, { text: 'Test' }, { text: 'Ship' }] } }),
  },
  {
    name: 'a board member reads it with its card expanded',
    method: 'GET',
    path: (c) => `/v1/checklists/${c.list.id}?expand=card`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ checklist: { id: c.list.id, expand: { card: { id: c.card.id, key: c.card.key, checklist_progress: { done: 0, total: 4 } } } } }),
  },
  {
    name: 'an unknown expand relation is a 400',
    method: 'GET',
    path: (c) => `/v1/checklists/${c.list.id}?expand=board`,
    token: (c) => c.tokens.member.read,
    status: 400,
  },
  {
    name: 'a member of another board cannot read it: 404',
    method: 'GET',
    path: (c) => `/v1/checklists/${c.list.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'a member of another board cannot add a checklist to the card: 404',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => ({ card: c.card.id, title: 'Mine' }),
    status: 404,
  },
  {
    name: 'a member of another board cannot rename it: 404',
    method: 'PATCH',
    path: (c) => `/v1/checklists/${c.list.id}`,
    token: (c) => c.tokens.outsider.write,
    body: { title: 'Mine' },
    status: 404,
  },
  {
    name: 'a member of another board cannot delete it: 404',
    method: 'DELETE',
    path: (c) => `/v1/checklists/${c.list.id}`,
    token: (c) => c.tokens.outsider.write,
    status: 404,
  },
  {
    name: 'a member of another board cannot add an item: 404',
    method: 'POST',
    path: items,
    token: (c) => c.tokens.outsider.write,
    body: { text: 'x' },
    status: 404,
  },
  {
    name: 'a member of another board cannot tick an item: 404, nothing emitted',
    method: 'PATCH',
    path: item,
    token: (c) => c.tokens.outsider.write,
    body: { completed: true },
    status: 404,
    events: [],
  },
  {
    name: 'a member of another board cannot delete an item: 404',
    method: 'DELETE',
    path: item,
    token: (c) => c.tokens.outsider.write,
    status: 404,
  },
  {
    name: 'a read-only token cannot create a checklist',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.member.read,
    body: (c: C) => ({ card: c.card.id, title: 'x' }),
    status: 403,
  },
  {
    name: 'a read-only token cannot tick an item',
    method: 'PATCH',
    path: item,
    token: (c) => c.tokens.owner.read,
    body: { completed: true },
    status: 403,
    events: [],
  },
  {
    name: 'a read-only token cannot delete a checklist',
    method: 'DELETE',
    path: (c) => `/v1/checklists/${c.list.id}`,
    token: (c) => c.tokens.member.read,
    status: 403,
  },
  {
    name: 'a missing title is named',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id }),
    status: 422,
    field: 'title',
  },
  {
    name: 'a blank title is refused',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id, title: '   ' }),
    status: 422,
    field: 'title',
  },
  {
    name: 'a title past 500 characters is refused',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id, title: 'x'.repeat(501) }),
    status: 422,
    field: 'title',
  },
  {
    name: 'a missing card is named',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.member.write,
    body: { title: 'x' },
    status: 422,
    field: 'card',
  },
  {
    name: 'an empty item text among the items is named by its index',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id, title: 'x', items: ['ok', ''] }),
    status: 422,
    field: 'items.1',
  },
  {
    name: 'more than 500 items at once are refused',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id, title: 'x', items: Array.from({ length: 501 }, (_, i) => `item ${i}`) }),
    status: 422,
    field: 'items',
  },
  {
    name: 'an unknown field is named',
    method: 'PATCH',
    path: (c) => `/v1/checklists/${c.list.id}`,
    token: (c) => c.tokens.member.write,
    body: { name: 'x' },
    status: 422,
    field: 'name',
  },
  {
    name: 'an item text past 2,000 characters is refused',
    method: 'POST',
    path: items,
    token: (c) => c.tokens.member.write,
    body: { text: 'x'.repeat(2001) },
    status: 422,
    field: 'text',
  },
  { name: 'a missing item text is named', method: 'POST', path: items, token: (c) => c.tokens.member.write, body: {}, status: 422, field: 'text' },
  {
    name: 'completed must be a boolean',
    method: 'PATCH',
    path: item,
    token: (c) => c.tokens.member.write,
    body: { completed: 'yes' },
    status: 422,
    field: 'completed',
    events: [],
  },
  {
    name: 'a position must be a number',
    method: 'PATCH',
    path: item,
    token: (c) => c.tokens.member.write,
    body: { position: 'first' },
    status: 422,
    field: 'position',
  },
  {
    name: 'an unknown card is 404',
    method: 'POST',
    path: '/v1/checklists',
    token: (c) => c.tokens.member.write,
    body: { card: 'nope', title: 'x' },
    status: 404,
  },
  { name: 'an unknown checklist is 404', method: 'GET', path: '/v1/checklists/nope', token: (c) => c.tokens.member.read, status: 404 },
  {
    name: 'an item of an unknown checklist is 404',
    method: 'POST',
    path: '/v1/checklists/nope/items',
    token: (c) => c.tokens.member.write,
    body: { text: 'x' },
    status: 404,
  },
  {
    name: 'an unknown item is 404',
    method: 'PATCH',
    path: (c) => `/v1/checklists/${c.list.id}/items/nope`,
    token: (c) => c.tokens.member.write,
    body: { completed: true },
    status: 404,
  },
  {
    name: 'an item of another checklist is 404, and stays as it was',
    method: 'PATCH',
    path: (c) => `/v1/checklists/${c.second.id}/items/${c.item.id}`,
    token: (c) => c.tokens.member.write,
    body: { completed: true },
    status: 404,
    events: [],
    after: async (c) =>
      assert.equal((await c.t.req('GET', `/v1/checklists/${c.list.id}`, { token: c.tokens.member.read })).body.checklist.items[0].completed, false),
  },
  {
    name: 'deleting an item of another checklist is 404',
    method: 'DELETE',
    path: (c) => `/v1/checklists/${c.second.id}/items/${c.item.id}`,
    token: (c) => c.tokens.member.write,
    status: 404,
  },
  {
    name: 'ticking an item emits checklist.item_completed',
    method: 'PATCH',
    path: item,
    token: (c) => c.tokens.member.write,
    body: { completed: true },
    status: 200,
    events: ['checklist.item_completed'],
    expect: (c: C) => ({
      checklist_item: { id: c.item.id, completed: true, completed_by: { id: c.member.id } },
      checklist: { id: c.list.id, items: [{ completed: true }, { completed: false }, { completed: false }] },
    }),
  },
  {
    name: 'unticking an unticked item changes nothing and emits nothing',
    method: 'PATCH',
    path: item,
    token: (c) => c.tokens.member.write,
    body: { completed: false },
    status: 200,
    events: [],
    expect: { checklist_item: { completed: false, completed_at: null, completed_by: null } },
  },
  {
    name: 'renaming an item emits nothing',
    method: 'PATCH',
    path: item,
    token: (c) => c.tokens.admin.write,
    body: { text: 'Write it down' },
    status: 200,
    events: [],
    expect: { checklist_item: { text: 'Write it down', completed: false } },
  },
  {
    name: 'renaming a checklist',
    method: 'PATCH',
    path: (c) => `/v1/checklists/${c.list.id}`,
    token: (c) => c.tokens.member.write,
    body: { title: 'Launch steps' },
    status: 200,
    expect: (c: C) => ({ checklist: { id: c.list.id, title: 'Launch steps', position: 1 } }),
  },
  {
    name: 'adding an item answers it and the whole checklist',
    method: 'POST',
    path: items,
    token: (c) => c.tokens.member.write,
    body: { text: 'Celebrate' },
    status: 201,
    events: [],
    expect: { checklist_item: { text: 'Celebrate', position: 4, completed: false }, checklist: { items: [{}, {}, {}, { text: 'Celebrate' }] } },
  },
  {
    name: 'deleting an item',
    method: 'DELETE',
    path: item,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: [],
    after: async (c) =>
      assert.deepEqual(
        (await c.t.req('GET', `/v1/checklists/${c.list.id}`, { token: c.tokens.member.read })).body.checklist.items.map((i: { text: string }) => i.text),
        ['Test', 'Ship'],
      ),
  },
  {
    name: 'deleting a checklist takes its items along',
    method: 'DELETE',
    path: (c) => `/v1/checklists/${c.list.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    after: async (c) => {
      assert.equal((await c.t.req('GET', `/v1/checklists/${c.list.id}`, { token: c.tokens.member.read })).status, 404)
      assert.equal(Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM checklist_items WHERE checklist_id = ?', c.list.id))!.n), 0)
    },
  },
])

const get = async (t: TestApp, token: string, path: string) => {
  const r = await t.req('GET', path, { token })
  assert.equal(r.status, 200, r.text)
  return r.body
}

test('ticking records who and when; ticking again changes nothing; unticking clears both', async () => {
  const c = await fixture()
  try {
    const at = (ms: number) => new Date(Date.parse('2026-11-21T12:00:00.000Z') + ms).toISOString()
    c.t.clock.advance(60_000)
    const ticked = await c.t.req('PATCH', item(c), { token: c.tokens.member.write, body: { completed: true } })
    assert.equal(ticked.status, 200, ticked.text)
    const who = { id: c.member.id, name: c.list.created_by.name }
    assert.deepEqual(ticked.body.checklist_item, { id: c.item.id, text: 'Write', completed: true, completed_at: at(60_000), completed_by: who, position: 1 })
    assert.equal(ticked.body.checklist.updated, at(60_000))

    c.t.clock.advance(60_000)
    const again = await c.t.req('PATCH', item(c), { token: c.tokens.admin.write, body: { completed: true } })
    assert.deepEqual(again.body.checklist_item, ticked.body.checklist_item, 'still ticked by the member, at the first time')
    assert.equal(again.body.checklist.updated, at(60_000))

    c.t.clock.advance(60_000)
    const unticked = await c.t.req('PATCH', item(c), { token: c.tokens.admin.write, body: { completed: false } })
    assert.deepEqual(unticked.body.checklist_item, { ...ticked.body.checklist_item, completed: false, completed_at: null, completed_by: null })
    assert.equal(unticked.body.checklist.updated, at(180_000))
    const events = await c.t.deps.db.q.selectFrom('events').select(['name', 'data']).where('name', 'like', 'checklist.%').orderBy('seq').execute()
    assert.deepEqual(
      events.map((e) => [e.name, JSON.parse(e.data).actor.id]),
      [
        ['checklist.item_completed', c.member.id],
        ['checklist.item_uncompleted', c.admin.id],
      ],
    )
  } finally {
    await c.t.close()
  }
})

test('an item an automation run ticks has no completed_by, and its event names what started the run', async () => {
  const c = await fixture()
  try {
    const actor: Actor = {
      user: { id: 'automation:a1', email: '', name: 'Close out', role: 'member', kind: 'human', created_at: c.list.created },
      tokenId: '',
      permission: 'write',
      run: { id: 'r1', board: c.board.id, as: { id: 'a1', name: 'Close out', kind: 'automation' } },
    }
    const { checklist_item } = await updateChecklistItem(c.t.deps, actor, c.list.id, c.item.id, { completed: true })
    assert.deepEqual([checklist_item.completed, checklist_item.completed_by], [true, null])
    const event = await c.t.deps.db.q.selectFrom('events').select('data').where('name', '=', 'checklist.item_completed').executeTakeFirstOrThrow()
    assert.deepEqual(JSON.parse(event.data).actor, { id: 'a1', name: 'Close out', kind: 'automation' })
  } finally {
    await c.t.close()
  }
})

test('reordering: items and checklists move to a given position, a taken one moves the others along', async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.member.write
    const texts = (checklist: { items: { text: string }[] }) => checklist.items.map((i) => i.text)
    const [write, test_, ship] = c.list.items.map((i: { id: string }) => i.id)
    let r = await c.t.req('PATCH', `/v1/checklists/${c.list.id}/items/${ship}`, { token: tok, body: { position: 0.5 } })
    assert.equal(r.status, 200, r.text)
    assert.deepEqual(texts(r.body.checklist), ['Ship', 'Write', 'Test'])
    assert.equal(r.body.checklist_item.position, 0.5, 'a free position is used as is')
    r = await c.t.req('PATCH', `/v1/checklists/${c.list.id}/items/${write}`, { token: tok, body: { position: 0.5 } })
    assert.deepEqual(texts(r.body.checklist), ['Write', 'Ship', 'Test'], 'a taken position goes before the item holding it')
    assert.equal(new Set(r.body.checklist.items.map((i: { position: number }) => i.position)).size, 3, 'positions stay distinct')
    r = await c.t.req('POST', `/v1/checklists/${c.list.id}/items`, { token: tok, body: { text: 'Plan', position: -1 } })
    assert.equal(r.status, 201, r.text)
    assert.deepEqual(texts(r.body.checklist), ['Plan', 'Write', 'Ship', 'Test'])
    r = await c.t.req('PATCH', `/v1/checklists/${c.list.id}/items/${test_}`, { token: tok, body: { text: 'Test well', completed: true, position: -5 } })
    assert.deepEqual(texts(r.body.checklist), ['Test well', 'Plan', 'Write', 'Ship'], 'rename, tick and move at once')

    const third = (await c.t.req('POST', '/v1/checklists', { token: tok, body: { card: c.card.id, title: 'Third' } })).body.checklist
    const titles = async () => (await get(c.t, tok, `/v1/checklists?card=${c.card.id}`)).items.map((x: { title: string }) => x.title)
    assert.deepEqual(await titles(), ['Steps', 'Later', 'Third'])
    r = await c.t.req('PATCH', `/v1/checklists/${third.id}`, { token: tok, body: { position: 1 } })
    assert.equal(r.status, 200, r.text)
    assert.deepEqual(await titles(), ['Third', 'Steps', 'Later'])
    await c.t.req('PATCH', `/v1/checklists/${c.list.id}`, { token: tok, body: { position: 100 } })
    assert.deepEqual(await titles(), ['Third', 'Later', 'Steps'])
  } finally {
    await c.t.close()
  }
})

test('lists: by card, across visible boards, with filter, sort, expand and the page envelope', async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.member.write
    const card2 = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title: 'Two' } })).body.card
    c.t.clock.advance(1000)
    await c.t.req('POST', '/v1/checklists', { token: tok, body: { card: card2.id, title: 'Alpha review' } })
    const hidden = (await c.t.req('POST', '/v1/cards', { token: c.tokens.outsider.write, body: { board: c.other.id, title: 'Hidden' } })).body.card
    await c.t.req('POST', '/v1/checklists', { token: c.tokens.outsider.write, body: { card: hidden.id, title: 'Secret review' } })
    const titles = (page: { items: { title: string }[] }) => page.items.map((x) => x.title)

    const byCard = await get(c.t, c.tokens.member.read, `/v1/checklists?card=${c.card.id}`)
    assert.deepEqual(titles(byCard), ['Steps', 'Later'], 'position order')
    assert.deepEqual(
      { page: byCard.page, perPage: byCard.perPage, totalItems: byCard.totalItems, totalPages: byCard.totalPages },
      { page: 1, perPage: 30, totalItems: 2, totalPages: 1 },
    )
    assert.deepEqual(
      byCard.items[0].items.map((i: { text: string }) => i.text),
      ['Write', 'Test', 'Ship'],
    )
    assert.deepEqual(
      titles(await get(c.t, c.tokens.member.read, '/v1/checklists?sort=-created,title')),
      ['Alpha review', 'Later', 'Steps'],
      "another board's stay out",
    )
    assert.deepEqual(
      titles(await get(c.t, c.tokens.owner.read, '/v1/checklists?sort=title')),
      ['Alpha review', 'Later', 'Secret review', 'Steps'],
      'owners see every board',
    )
    assert.deepEqual(titles(await get(c.t, c.tokens.member.read, `/v1/checklists?filter=${encodeURIComponent('title ~ "review"')}`)), ['Alpha review'])
    assert.deepEqual(
      titles(await get(c.t, c.tokens.member.read, `/v1/checklists?filter=${encodeURIComponent('card.title = "Ship it" && title != "Steps"')}`)),
      ['Later'],
    )
    assert.deepEqual(titles(await get(c.t, c.tokens.member.read, `/v1/checklists?filter=${encodeURIComponent('created > "2026-11-21T12:00:00Z"')}`)), [
      'Alpha review',
    ])
    const paged = await get(c.t, c.tokens.member.read, '/v1/checklists?per_page=2&page=2&sort=created')
    assert.deepEqual([titles(paged), paged.totalItems, paged.totalPages], [['Alpha review'], 3, 2])
    const expanded = await get(c.t, c.tokens.member.read, `/v1/checklists?card=${card2.id}&expand=card`)
    assert.equal(expanded.items[0].expand.card.title, 'Two')
    assert.equal((await get(c.t, c.tokens.member.read, `/v1/checklists?card=${hidden.id}`)).totalItems, 0)
    for (const q of ['sort=nope', 'filter=nope=1', 'expand=items', 'per_page=501'])
      assert.equal((await c.t.req('GET', `/v1/checklists?${q}`, { token: c.tokens.member.read })).status, 400, q)
  } finally {
    await c.t.close()
  }
})

test('limits: 100 checklists per card and 500 items per checklist (409 past them, nothing written)', async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.member.write
    for (let i = 2; i < 100; i++)
      assert.equal((await c.t.req('POST', '/v1/checklists', { token: tok, body: { card: c.card.id, title: `List ${i}` } })).status, 201)
    const over = await c.t.req('POST', '/v1/checklists', { token: tok, body: { card: c.card.id, title: 'One too many' } })
    assert.equal(over.status, 409, over.text)
    assert.match(over.body.error.message, /at most 100 checklists/)
    assert.equal((await get(c.t, tok, `/v1/checklists?card=${c.card.id}`)).totalItems, 100)

    const card2 = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title: 'Big' } })).body.card
    const full = await c.t.req('POST', '/v1/checklists', {
      token: tok,
      body: { card: card2.id, title: 'Full', items: Array.from({ length: 500 }, (_, i) => `item ${i}`) },
    })
    assert.equal(full.status, 201, full.text)
    assert.equal(full.body.checklist.items.length, 500)
    const more = await c.t.req('POST', `/v1/checklists/${full.body.checklist.id}/items`, { token: tok, body: { text: 'one more' } })
    assert.equal(more.status, 409, more.text)
    assert.match(more.body.error.message, /at most 500 items/)
    assert.equal((await get(c.t, tok, `/v1/checklists/${full.body.checklist.id}`)).checklist.items.length, 500)
  } finally {
    await c.t.close()
  }
})

test("the card's checklist_progress counts every item of its checklists, and expand=checklists shows them in order", async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.member.write
    c.t.clock.advance(1000)
    const bare = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title: 'Bare' } })).body.card
    assert.deepEqual(bare.checklist_progress, { done: 0, total: 0 })
    await c.t.req('PATCH', item(c), { token: tok, body: { completed: true } })
    await c.t.req('PATCH', `/v1/checklists/${c.second.id}/items/${c.second.items[0].id}`, { token: tok, body: { completed: true } })
    await c.t.req('PATCH', `/v1/checklists/${c.second.id}`, { token: tok, body: { position: 0 } })

    const card = (await get(c.t, tok, `/v1/cards/${c.card.id}?expand=checklists`)).card
    assert.deepEqual(card.checklist_progress, { done: 2, total: 4 })
    assert.deepEqual(
      card.expand.checklists.map((l: { title: string; items: { text: string; completed: boolean }[] }) => [l.title, l.items.map((i) => [i.text, i.completed])]),
      [
        ['Later', [['Party', true]]],
        [
          'Steps',
          [
            ['Write', true],
            ['Test', false],
            ['Ship', false],
          ],
        ],
      ],
    )
    assert.equal(card.expand.checklists[0].id, c.second.id)
    const page = await get(c.t, tok, `/v1/cards?board=${c.board.id}&expand=checklists&sort=created`)
    assert.deepEqual(
      page.items.map((x: { title: string; checklist_progress: unknown; expand: { checklists: unknown[] } }) => [
        x.title,
        x.checklist_progress,
        x.expand.checklists.length,
      ]),
      [
        ['Ship it', { done: 2, total: 4 }, 2],
        ['Bare', { done: 0, total: 0 }, 0],
      ],
    )
    assert.equal((await get(c.t, tok, `/v1/cards/${c.card.id}`)).card.expand, undefined, 'checklists only when asked')
  } finally {
    await c.t.close()
  }
})

test('a card deleted for good takes its checklists and items along; a trashed card keeps them', async () => {
  const c = await fixture()
  try {
    const count = async (table: string) => Number((await dbGet<{ n: number }>(c.t.deps.db, `SELECT count(*) AS n FROM ${table}`))!.n)
    assert.equal((await c.t.req('DELETE', `/v1/cards/${c.card.id}`, { token: c.tokens.member.write })).status, 204)
    assert.equal((await get(c.t, c.tokens.member.read, `/v1/checklists?card=${c.card.id}`)).totalItems, 2)
    assert.equal((await c.t.req('DELETE', `/v1/cards/${c.card.id}?permanent=true`, { token: c.tokens.member.write })).status, 204)
    assert.deepEqual([await count('checklists'), await count('checklist_items')], [0, 0])
    assert.equal((await c.t.req('GET', `/v1/checklists/${c.list.id}`, { token: c.tokens.member.read })).status, 404)
  } finally {
    await c.t.close()
  }
})

test('checklist item events reach a receiver with the item, its checklist and the task key, title and link', async () => {
  const c = await webhookApp()
  try {
    await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok`, events: ['checklist.*'] })
    const tok = c.tokens.member.write
    const card = (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, title: 'Ship it' } })).body.card
    const list = (await c.t.req('POST', '/v1/checklists', { token: tok, body: { card: card.id, title: 'Steps', items: ['Write'] } })).body.checklist
    const path = `/v1/checklists/${list.id}/items/${list.items[0].id}`
    assert.equal((await c.t.req('PATCH', path, { token: tok, body: { completed: true } })).status, 200)
    assert.equal((await c.t.req('PATCH', path, { token: c.tokens.admin.write, body: { text: 'Write more', completed: false } })).status, 200)
    while ((await c.scheduler.runOnce()) > 0);
    assert.equal(c.receiver.hits.length, 2)
    // Deliveries run side by side: their order of arrival is not the order of the events.
    const data = (event: string) => c.receiver.hits.find((h) => h.json.event === event)?.json.data
    const refs = {
      checklist: { id: list.id, name: 'Steps' },
      card: { id: card.id, key: card.key, title: 'Ship it', url: `${publicBaseUrl(c.t.deps.config)}/v1/cards/${card.id}` },
      board: { id: c.board.id, name: 'Launch' },
    }
    assert.deepEqual(data('checklist.item_completed'), {
      id: list.items[0].id,
      text: 'Write',
      ...refs,
      actor: { id: c.member.id, name: list.created_by.name },
    })
    const admin = (await c.t.req('GET', `/v1/users/${c.admin.id}`, { token: c.tokens.admin.read })).body.user
    assert.deepEqual(data('checklist.item_uncompleted'), { id: list.items[0].id, text: 'Write more', ...refs, actor: { id: c.admin.id, name: admin.name } })
  } finally {
    await c.close()
  }
})
