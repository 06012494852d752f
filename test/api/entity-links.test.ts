// Entity links through HTTP: links from a card to a card, a note, a milestone or a URL (validated,
// never fetched), the permission matrix, duplicates, and parent_of links as cards' parents: `parent` on every card
// view, set on create, PATCH and bulk-update-cards in step with the link, chains that never cycle (422 with the keys,
// also two changes at once), subtasks, filter `parent`, expand=links, and a parent deleted for good.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbAll } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  const card = async (title: string, extra: object = {}, board = s.board.id, token = tokens.member.write) => {
    const r = await t.req('POST', '/v1/cards', { token, body: { board, title, ...extra } })
    assert.equal(r.status, 201, r.text)
    return r.body.card as { id: string; key: string; parent: string | null }
  }
  // LCH-1 is the parent of LCH-3, which is the parent of LCH-2 (made after its child's child, by PATCH).
  const p = await card('Epic')
  const c = await card('Task')
  const g = await card('Story', { parent: p.id })
  const set = await t.req('PATCH', `/v1/cards/${c.id}`, { token: tokens.member.write, body: { parent: g.id } })
  assert.equal(set.status, 200, set.text)
  const free = await card('Loose')
  const note = (await t.req('POST', '/v1/notes', { token: tokens.member.write, body: { title: 'Plan', board: s.board.id } })).body.note
  const url = (
    await t.req('POST', '/v1/entity-links', {
      token: tokens.member.write,
      body: { kind: 'relates_to', source: { type: 'card', id: p.id }, target: { type: 'url', url: 'https://example.com/spec', title: 'Spec' } },
    })
  ).body.entity_link
  const parentLink = (await dbAll<{ id: string }>(t.deps.db, "SELECT id FROM entity_links WHERE kind = 'parent_of' AND target_card_id = ?", c.id))[0]
  const other = (await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })).body.board
  const elsewhere = await card('Theirs', {}, other.id, tokens.outsider.write)
  const milestone = (await t.req('POST', '/v1/milestones', { token: tokens.member.write, body: { board: s.board.id, name: 'Beta' } })).body.milestone
  const theirMilestone = (await t.req('POST', '/v1/milestones', { token: tokens.outsider.write, body: { board: other.id, name: 'Theirs' } })).body.milestone
  return { ...s, p, c, g, free, note, url, parentLink, elsewhere, card, milestone, theirMilestone }
}
type C = Awaited<ReturnType<typeof fixture>>

const link = (body: (c: C) => object) => ({ method: 'POST', path: '/v1/entity-links', body })
const cardOf = async (c: C, id: string, expand = '') =>
  (await c.t.req('GET', `/v1/cards/${id}${expand ? `?expand=${expand}` : ''}`, { token: c.tokens.member.read })).body.card
const changesOf = async (c: C, name: string) =>
  (await dbAll<{ data: string }>(c.t.deps.db, 'SELECT data FROM events WHERE name = ? ORDER BY seq', name)).map((e) => JSON.parse(e.data))

runScenarios<C>('entity links', fixture, [
  {
    name: 'a card relates to another card; entity_link.created is emitted',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'card', id: c.p.id } })),
    token: (c) => c.tokens.member.write,
    status: 201,
    events: ['entity_link.created'],
    expect: (c: C) => ({
      entity_link: {
        kind: 'relates_to',
        source: { type: 'card', id: c.free.id },
        target: { type: 'card', id: c.p.id },
        created_by: { id: c.member.id },
        created: '2026-11-21T12:00:00.000Z',
      },
    }),
  },
  {
    name: 'a card duplicates a note-less card across boards the caller sees (an admin)',
    ...link((c) => ({ kind: 'duplicates', source: { type: 'card', id: c.elsewhere.id }, target: { type: 'card', id: c.free.id } })),
    token: (c) => c.tokens.admin.write,
    status: 201,
  },
  {
    name: 'a card links to a note',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'note', id: c.note.id, title: 'The plan' } })),
    token: (c) => c.tokens.member.write,
    status: 201,
    expect: (c: C) => ({ entity_link: { target: { type: 'note', id: c.note.id, title: 'The plan' } } }),
  },
  {
    name: 'a URL target is stored as given, never fetched',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'url', url: 'http://127.0.0.1:1/never' } })),
    token: (c) => c.tokens.member.write,
    status: 201,
    expect: { entity_link: { target: { type: 'url', url: 'http://127.0.0.1:1/never' } } },
  },
  {
    name: 'a URL that is not http(s) is refused',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'url', url: 'javascript:alert(1)' } })),
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'target.url',
  },
  {
    name: 'a URL target needs its url',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'url', id: 'x' } })),
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'target.url',
  },
  {
    name: 'an unknown kind is named',
    ...link((c) => ({ kind: 'blocks', source: { type: 'card', id: c.free.id }, target: { type: 'card', id: c.p.id } })),
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'kind',
  },
  {
    name: 'a link to a milestone of the board; the link goes when the milestone does',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'milestone', id: c.milestone.id } })),
    token: (c) => c.tokens.member.write,
    status: 201,
    expect: (c: C) => ({ entity_link: { target: { type: 'milestone', id: c.milestone.id } } }),
    after: async (c, reply) => {
      assert.equal((await c.t.req('DELETE', `/v1/milestones/${c.milestone.id}`, { token: c.tokens.member.write })).status, 204)
      assert.equal((await c.t.req('GET', `/v1/entity-links/${reply.body.entity_link.id}`, { token: c.tokens.member.read })).status, 404)
    },
  },
  {
    name: 'a milestone on a board the caller cannot see is a 404',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'milestone', id: c.theirMilestone.id } })),
    token: (c) => c.tokens.member.write,
    status: 404,
  },
  {
    name: 'a card cannot link to itself',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'card', id: c.free.id } })),
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'target.id',
  },
  {
    name: 'the same link twice is a 409',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.p.id }, target: { type: 'url', url: 'https://example.com/spec' } })),
    token: (c) => c.tokens.member.write,
    status: 409,
    events: [],
  },
  {
    name: 'relates_to the other way round is the same link: 409',
    method: 'POST',
    path: '/v1/entity-links',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ kind: 'relates_to', source: { type: 'card', id: c.p.id }, target: { type: 'card', id: c.free.id } }),
    status: 201,
    after: async (c) => {
      const again = await c.t.req('POST', '/v1/entity-links', {
        token: c.tokens.member.write,
        body: { kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'card', id: c.p.id } },
      })
      assert.equal(again.status, 409, again.text)
    },
  },
  {
    name: 'parent_of makes a parent: card.updated naming parent, then entity_link.created',
    ...link((c) => ({ kind: 'parent_of', source: { type: 'card', id: c.p.id }, target: { type: 'card', id: c.free.id } })),
    token: (c) => c.tokens.member.write,
    status: 201,
    events: ['card.updated', 'entity_link.created'],
    expect: (c: C) => ({ entity_link: { kind: 'parent_of', source: { id: c.p.id }, target: { type: 'card', id: c.free.id } } }),
    after: async (c) => {
      assert.equal((await cardOf(c, c.free.id)).parent, c.p.id)
      assert.deepEqual((await cardOf(c, c.p.id)).subtasks, { done: 0, total: 2 })
      const updated = (await changesOf(c, 'card.updated')).at(-1)
      assert.deepEqual([updated.key, updated.changes, updated.parent], ['LCH-4', ['parent'], c.p.id])
    },
  },
  {
    name: 'a card has at most one parent: 409',
    ...link((c) => ({ kind: 'parent_of', source: { type: 'card', id: c.free.id }, target: { type: 'card', id: c.c.id } })),
    token: (c) => c.tokens.member.write,
    status: 409,
    events: [],
  },
  {
    name: 'parent_of names a card target',
    ...link((c) => ({ kind: 'parent_of', source: { type: 'card', id: c.free.id }, target: { type: 'url', url: 'https://example.com/' } })),
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'target.type',
  },
  {
    name: 'a parent_of link that closes a chain is a 422 with the keys',
    ...link((c) => ({ kind: 'parent_of', source: { type: 'card', id: c.c.id }, target: { type: 'card', id: c.p.id } })),
    token: (c) => c.tokens.member.write,
    status: 422,
    field: 'target.id',
    events: [],
    after: (_c, r) => assert.match(r.body.error.message, /LCH-1 → LCH-3 → LCH-2 → LCH-1/),
  },
  {
    name: 'a parent that would make a cycle (PATCH): 422 naming the cards by keys',
    method: 'PATCH',
    path: (c) => `/v1/cards/${c.p.id}`,
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ parent: c.c.id }),
    status: 422,
    field: 'parent',
    events: [],
    after: (_c, r) => assert.match(r.body.error.message, /LCH-1 → LCH-3 → LCH-2 → LCH-1/),
  },
  {
    name: 'a card cannot be its own parent',
    method: 'PATCH',
    path: (c) => `/v1/cards/${c.p.id}`,
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ parent: c.p.id }),
    status: 422,
    field: 'parent',
  },
  {
    name: 'a parent on a board the caller does not see is no such card',
    method: 'PATCH',
    path: (c) => `/v1/cards/${c.free.id}`,
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ parent: c.elsewhere.id }),
    status: 422,
    field: 'parent',
  },
  {
    name: 'changing a parent replaces the link: card.updated, the old link’s deletion, the new one’s creation',
    method: 'PATCH',
    path: (c) => `/v1/cards/${c.c.id}`,
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ parent: c.p.id }),
    status: 200,
    events: ['card.updated', 'entity_link.deleted', 'entity_link.created'],
    expect: (c: C) => ({ card: { parent: c.p.id } }),
    after: async (c) => {
      const rows = await dbAll<{ source_card_id: string }>(
        c.t.deps.db,
        "SELECT source_card_id FROM entity_links WHERE kind = 'parent_of' AND target_card_id = ?",
        c.c.id,
      )
      assert.deepEqual(rows, [{ source_card_id: c.p.id }])
      assert.deepEqual((await cardOf(c, c.g.id)).subtasks, { done: 0, total: 0 })
    },
  },
  {
    name: 'parent null removes the link',
    method: 'PATCH',
    path: (c) => `/v1/cards/${c.c.id}`,
    token: (c) => c.tokens.member.write,
    body: { parent: null },
    status: 200,
    events: ['card.updated', 'entity_link.deleted'],
    expect: { card: { parent: null } },
  },
  {
    name: 'deleting a parent_of link takes the child off its parent',
    method: 'DELETE',
    path: (c) => `/v1/entity-links/${c.parentLink.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: ['card.updated', 'entity_link.deleted'],
    after: async (c) => assert.equal((await cardOf(c, c.c.id)).parent, null),
  },
  {
    name: 'a new card with a parent: card.created, then entity_link.created',
    method: 'POST',
    path: '/v1/cards',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ board: c.board.id, title: 'Sub', parent: c.p.id }),
    status: 201,
    events: ['card.created', 'entity_link.created'],
    expect: (c: C) => ({ card: { parent: c.p.id, subtasks: { done: 0, total: 0 }, blocked_by_open: 0 } }),
  },
  {
    name: 'bulk-update-cards sets the parent of each card, in step with its link',
    method: 'POST',
    path: '/v1/actions/bulk-update-cards',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ cards: [c.free.id, c.c.id], set: { parent: c.p.id } }),
    status: 200,
    expect: { updated: 2, failed: [] },
    after: async (c) => {
      assert.deepEqual((await cardOf(c, c.p.id)).subtasks, { done: 0, total: 3 })
      const rows = await dbAll(
        c.t.deps.db,
        "SELECT target_card_id FROM entity_links WHERE kind = 'parent_of' AND source_card_id = ? ORDER BY target_card_id",
        c.p.id,
      )
      assert.equal(rows.length, 3)
    },
  },
  {
    name: 'a read-only token cannot link: 403',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'card', id: c.p.id } })),
    token: (c) => c.tokens.member.read,
    status: 403,
  },
  {
    name: 'a read-only token cannot remove a link: 403',
    method: 'DELETE',
    path: (c) => `/v1/entity-links/${c.url.id}`,
    token: (c) => c.tokens.owner.read,
    status: 403,
  },
  {
    name: 'a member of another board cannot link from a card they do not see: 404',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.free.id }, target: { type: 'url', url: 'https://example.com/' } })),
    token: (c) => c.tokens.outsider.write,
    status: 404,
  },
  {
    name: 'nor to one: 404',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.elsewhere.id }, target: { type: 'card', id: c.free.id } })),
    token: (c) => c.tokens.outsider.write,
    status: 404,
  },
  {
    name: 'nor to a note they do not see: 404',
    ...link((c) => ({ kind: 'relates_to', source: { type: 'card', id: c.elsewhere.id }, target: { type: 'note', id: c.note.id } })),
    token: (c) => c.tokens.outsider.write,
    status: 404,
  },
  {
    name: 'a member of another board cannot read a link: 404',
    method: 'GET',
    path: (c) => `/v1/entity-links/${c.url.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'a member of another board cannot remove a link: 404',
    method: 'DELETE',
    path: (c) => `/v1/entity-links/${c.url.id}`,
    token: (c) => c.tokens.outsider.write,
    status: 404,
    events: [],
  },
  {
    name: 'a link’s label changes',
    method: 'PATCH',
    path: (c) => `/v1/entity-links/${c.url.id}`,
    token: (c) => c.tokens.member.write,
    body: { title: 'Spec v2' },
    status: 200,
    expect: { entity_link: { target: { type: 'url', url: 'https://example.com/spec', title: 'Spec v2' } } },
  },
  {
    name: 'removing a URL link emits entity_link.deleted',
    method: 'DELETE',
    path: (c) => `/v1/entity-links/${c.url.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    events: ['entity_link.deleted'],
  },
  {
    name: 'a card’s links, from and to it, with their cards expanded',
    method: 'GET',
    path: (c) => `/v1/entity-links?card=${c.g.id}&expand=cards`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({
      totalItems: 2,
      items: [
        { kind: 'parent_of', source: { id: c.p.id }, target: { id: c.g.id }, expand: { source: { key: 'LCH-1' }, target: { key: 'LCH-3' } } },
        { kind: 'parent_of', source: { id: c.g.id }, target: { id: c.c.id }, expand: { source: { key: 'LCH-3' }, target: { key: 'LCH-2' } } },
      ],
    }),
  },
  {
    name: 'filter and sort',
    method: 'GET',
    path: `/v1/entity-links?filter=${encodeURIComponent('kind = "relates_to" && target_type = "url"')}&sort=-created`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.url.id }] }),
  },
  {
    name: 'a member of another board lists none',
    method: 'GET',
    path: '/v1/entity-links',
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: { totalItems: 0 },
  },
])

test('parent on every card view, subtasks progress, filter parent, expand=links', async () => {
  const c = await fixture()
  try {
    const list = async (query: string) => (await c.t.req('GET', `/v1/cards?board=${c.board.id}&${query}`, { token: c.tokens.member.read })).body
    assert.deepEqual(
      (await list('sort=key')).items.map((x: { key: string; parent: string | null; subtasks: object }) => [x.key, x.parent, x.subtasks]),
      [
        ['LCH-1', null, { done: 0, total: 1 }],
        ['LCH-2', c.g.id, { done: 0, total: 0 }],
        ['LCH-3', c.p.id, { done: 0, total: 1 }],
        ['LCH-4', null, { done: 0, total: 0 }],
      ],
    )
    assert.deepEqual(
      (await list(`filter=${encodeURIComponent(`parent = "${c.g.id}"`)}`)).items.map((x: { key: string }) => x.key),
      ['LCH-2'],
    )
    assert.deepEqual(
      (await list(`sort=key&filter=${encodeURIComponent('parent.title = "Epic"')}`)).items.map((x: { key: string }) => x.key),
      ['LCH-3'],
    )
    await c.t.req('POST', `/v1/cards/${c.c.id}/complete`, { token: c.tokens.member.write, body: { completed: true } })
    assert.deepEqual((await cardOf(c, c.g.id)).subtasks, { done: 1, total: 1 })
    // A trashed subtask does not count.
    await c.t.req('DELETE', `/v1/cards/${c.c.id}`, { token: c.tokens.member.write })
    assert.deepEqual((await cardOf(c, c.g.id)).subtasks, { done: 0, total: 0 })
    // (LCH-2 is in the trash now: the list leaves it out.)
    const page = await list('sort=key&expand=links')
    assert.deepEqual(
      page.items[0].expand.links.map((l: { kind: string; target: object }) => [l.kind, l.target]),
      [
        ['parent_of', { type: 'card', id: c.g.id }],
        ['relates_to', { type: 'url', url: 'https://example.com/spec', title: 'Spec' }],
      ],
    )
    assert.deepEqual(
      page.items[1].expand.links.map((l: { source: { id: string } }) => l.source.id),
      [c.p.id, c.g.id],
    )
  } finally {
    await c.t.close()
  }
})

test('a parent deleted for good: its subtasks lose their parent, each with card.updated naming parent; its links go', async () => {
  const c = await fixture()
  try {
    const r = await c.t.req('DELETE', `/v1/cards/${c.g.id}?permanent=true`, { token: c.tokens.member.write })
    assert.equal(r.status, 204, r.text)
    assert.equal((await cardOf(c, c.c.id)).parent, null)
    assert.deepEqual((await cardOf(c, c.p.id)).subtasks, { done: 0, total: 0 })
    const last = (await changesOf(c, 'card.updated')).at(-1)
    assert.deepEqual([last.key, last.changes, last.parent], ['LCH-2', ['parent'], null])
    assert.equal((await changesOf(c, 'entity_link.deleted')).length, 2)
    assert.deepEqual(await dbAll(c.t.deps.db, "SELECT id FROM entity_links WHERE kind = 'parent_of'"), [])
  } finally {
    await c.t.close()
  }
})

test('two parent changes closing a chain at once: exactly one wins, every round', async () => {
  const c = await fixture()
  try {
    for (let round = 0; round < 12; round++) {
      const x = await c.card(`x${round}`)
      const y = await c.card(`y${round}`)
      const replies = await Promise.all([
        c.t.req('PATCH', `/v1/cards/${x.id}`, { token: c.tokens.member.write, body: { parent: y.id } }),
        c.t.req('PATCH', `/v1/cards/${y.id}`, { token: c.tokens.admin.write, body: { parent: x.id } }),
      ])
      assert.deepEqual(replies.map((r) => r.status).sort(), [200, 422], replies.map((r) => r.text).join('\n'))
    }
  } finally {
    await c.t.close()
  }
})
