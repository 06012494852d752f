// Board templates through HTTP, on one fixture: a snapshot of a board with and without its cards, content given as it
// is (checked: 422 naming the field), the permission matrix (members read; the creator, owners and admins change), and a
// board built from a template: every id new, lists bound to the new statuses, fields and card values carried.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { seededFixture } from '../helpers/app.js'
import { dbAll } from '../helpers/db.js'
import { assertErrorShape, assertSubset } from '../helpers/scenarios.js'

const fixture = () =>
  seededFixture(async (s) => {
    const { t, tokens } = s
    const req = async (method: string, url: string, body?: unknown, token = tokens.member.write, status = 201) => {
      const r = await t.req(method, url, { token, body })
      assert.equal(r.status, status, `${method} ${url}: ${r.text}`)
      return r.body
    }
    const review = (await req('POST', '/v1/board-statuses', { board: s.board.id, name: 'In review', category: 'started', color: '#123456' })).board_status
    const reviewList = (await req('POST', '/v1/lists', { board: s.board.id, name: 'Review', status: review.id })).list
    const bug = (await req('POST', '/v1/tags', { board: s.board.id, name: 'bug', color: '#ff0000' })).tag
    await req('POST', '/v1/xattr', { board: s.board.id, name: 'Estimate', type: 'number' })
    await req('POST', '/v1/xattr', { board: s.board.id, name: 'Stage', type: 'select', options: ['Design', 'Build'] })
    await req('POST', '/v1/xattr', { board: s.board.id, name: 'Double', type: 'formula', formula: 'estimate * 2' })
    const card = (
      await req('POST', '/v1/cards', {
        board: s.board.id,
        title: 'Write spec',
        list: reviewList.id,
        priority: 2,
        tags: [bug.id],
        xattr: { estimate: 3, stage: 'Build' },
      })
    ).card
    const plain = (await req('POST', '/v1/templates', { name: 'Plain', board: s.board.id })).template
    const full = (await req('POST', '/v1/templates', { name: 'Full', description: 'With cards', board: s.board.id, include_cards: true })).template
    const other = (await req('POST', '/v1/boards', { name: 'Other', key_prefix: 'OTH' }, tokens.outsider.write)).board
    const theirs = (await req('POST', '/v1/templates', { name: 'Theirs', content: { lists: [{ name: 'Only' }] } }, tokens.outsider.write)).template
    return { review, reviewList, bug, card, plain, full, other, theirs }
  })

const ready = fixture()
after(async () => (await ready).t.close())
type C = Awaited<typeof ready>

type Row = {
  name: string
  method: string
  path: string | ((c: C) => string)
  token?: (c: C) => string
  body?: (c: C) => unknown
  status: number
  field?: string
  events?: string[]
  expect?: (c: C) => unknown
  after?: (c: C, body: any) => void | Promise<void>
}

const eventSeq = async (c: C) => Number((await dbAll<{ n: number }>(c.t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))[0].n)
const eventsSince = async (c: C, seq: number) =>
  (await dbAll<{ name: string }>(c.t.deps.db, 'SELECT name FROM events WHERE seq > ? ORDER BY seq', seq)).map((e) => e.name)

function run(title: string, rows: Row[]) {
  for (const row of rows)
    test(`${title}: ${row.name}`, async () => {
      const c = await ready
      const before = await eventSeq(c)
      const r = await c.t.req(row.method, typeof row.path === 'function' ? row.path(c) : row.path, {
        token: (row.token ?? ((c) => c.tokens.member.write))(c),
        body: row.body?.(c),
      })
      assert.equal(r.status, row.status, r.text)
      if (r.status >= 400) assertErrorShape(r.body)
      if (row.field !== undefined) {
        const paths = (r.body.error.details ?? []).map((d: { path: string }) => d.path)
        assert.ok(paths.includes(row.field), `the details name ${row.field}: ${r.text}`)
      }
      if (row.events) assert.deepEqual(await eventsSince(c, before), row.events)
      if (row.expect) assertSubset(r.body, row.expect(c))
      await row.after?.(c, r.body)
    })
}

const CONTENT = {
  statuses: [
    { name: 'Open', category: 'unstarted' },
    { name: 'Closed', category: 'completed', color: '#00ff00' },
  ],
  lists: [
    { name: 'Inbox', status: 'Open' },
    { name: 'Archive', status: 'Closed' },
  ],
  tags: [{ name: 'ops' }],
  xattr_fields: [
    { name: 'Points', key: 'points', type: 'number' },
    { name: 'Kind', key: 'kind', type: 'select', options: [{ name: 'A' }, { name: 'B' }] },
  ],
  cards: [{ title: 'First', list: 'Inbox', tags: ['ops'], xattr: { points: 5, kind: 'B' } }],
}

const ids = (body: any): string[] => [
  body.board.id,
  ...body.lists.map((x: any) => x.id),
  ...body.statuses.map((x: any) => x.id),
  ...body.tags.map((x: any) => x.id),
  ...body.xattr_fields.flatMap((x: any) => [x.id, ...x.options.map((o: any) => o.id)]),
]

run('templates', [
  {
    name: 'a snapshot without cards holds the structure by name, no ids',
    method: 'GET',
    path: (c) => `/v1/templates/${c.plain.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: (c) => ({
      template: {
        name: 'Plain',
        created_by: c.member.id,
        content: {
          statuses: [{ name: 'To do' }, { name: 'In progress' }, { name: 'Done' }, { name: 'In review', category: 'started', color: '#123456' }],
          lists: [{ name: 'To do', status: 'To do' }, { name: 'In progress' }, { name: 'Done' }, { name: 'Review', status: 'In review', category: 'started' }],
          tags: [{ name: 'bug', color: '#ff0000' }],
          xattr_fields: [
            { key: 'estimate', type: 'number' },
            { key: 'stage', type: 'select', options: [{ name: 'Design' }, { name: 'Build' }] },
            { key: 'double', type: 'formula', formula: 'estimate * 2' },
          ],
          cards: [],
        },
      },
    }),
    after: (c, body) => assert.ok(!JSON.stringify(body.template.content).includes(c.board.id)),
  },
  {
    name: 'a snapshot with cards holds them with their values (options by name, computed fields left out)',
    method: 'GET',
    path: (c) => `/v1/templates/${c.full.id}`,
    status: 200,
    expect: () => ({
      template: {
        description: 'With cards',
        content: { cards: [{ title: 'Write spec', list: 'Review', priority: 2, tags: ['bug'], xattr: { estimate: 3, stage: 'Build' } }] },
      },
    }),
  },
  {
    name: 'a board from the snapshot: every id new, lists bound to the new statuses, fields and card values carried',
    method: 'POST',
    path: '/v1/boards',
    body: (c) => ({ name: 'From full', template: c.full.id }),
    status: 201,
    expect: () => ({
      board: { name: 'From full' },
      lists: [{ name: 'To do' }, { name: 'In progress' }, { name: 'Done' }, { name: 'Review', category: 'started' }],
      tags: [{ name: 'bug' }],
      xattr_fields: [{ key: 'estimate' }, { key: 'stage' }, { key: 'double' }],
    }),
    after: async (c, body) => {
      const old = [c.board.id, c.review.id, c.reviewList.id, c.bug.id, c.card.id]
      for (const id of ids(body)) assert.ok(!old.includes(id), `new id ${id}`)
      assert.equal(new Set(ids(body)).size, ids(body).length)
      const statusIds = new Set(body.statuses.map((s: any) => s.id))
      for (const l of body.lists) assert.ok(statusIds.has(l.status), `list ${l.name} bound to a new status`)
      const review = body.lists.find((l: any) => l.name === 'Review')
      assert.equal(body.statuses.find((s: any) => s.id === review.status).name, 'In review')
      const cards = await c.t.req('GET', `/v1/cards?board=${body.board.id}`, { token: c.tokens.member.read })
      assert.equal(cards.status, 200, cards.text)
      assert.equal(cards.body.items.length, 1)
      const [made] = cards.body.items
      const stage = body.xattr_fields.find((f: any) => f.key === 'stage')
      assertSubset(made, { title: 'Write spec', list: review.id, priority: 2, tags: [body.tags[0].id] })
      assert.deepEqual(made.xattr, { estimate: 3, stage: stage.options.find((o: any) => o.name === 'Build').id, double: 6 })
      assert.notEqual(made.id, c.card.id)
    },
  },
  {
    name: 'a board from the snapshot without cards has none',
    method: 'POST',
    path: '/v1/boards',
    body: (c) => ({ name: 'From plain', template: c.plain.id }),
    status: 201,
    after: async (c, body) => {
      const cards = await c.t.req('GET', `/v1/cards?board=${body.board.id}`, { token: c.tokens.member.read })
      assert.equal(cards.body.items.length, 0)
      assert.equal(body.statuses.length, 4)
    },
  },
  {
    name: 'content given as it is makes a template, and a board from it',
    method: 'POST',
    path: '/v1/templates',
    body: () => ({ name: 'Given', content: CONTENT }),
    status: 201,
    events: ['template.created'],
    after: async (c, body) => {
      const made = await c.t.req('POST', '/v1/boards', { token: c.tokens.member.write, body: { name: 'From given', template: body.template.id } })
      assert.equal(made.status, 201, made.text)
      assertSubset(made.body, {
        statuses: [
          { name: 'Open', category: 'unstarted' },
          { name: 'Closed', color: '#00ff00' },
        ],
        lists: [
          { name: 'Inbox', category: 'unstarted' },
          { name: 'Archive', category: 'completed' },
        ],
      })
      const cards = await c.t.req('GET', `/v1/cards?board=${made.body.board.id}`, { token: c.tokens.member.read })
      const kind = made.body.xattr_fields.find((f: any) => f.key === 'kind')
      assert.deepEqual(cards.body.items[0].xattr, { points: 5, kind: kind.options[1].id })
    },
  },
  {
    name: 'content without statuses gets one per list',
    method: 'POST',
    path: '/v1/templates',
    body: () => ({
      name: 'Lists only',
      content: {
        lists: [
          { name: 'A', category: 'unstarted' },
          { name: 'B', category: 'completed' },
        ],
      },
    }),
    status: 201,
    after: async (c, body) => {
      const made = await c.t.req('POST', '/v1/boards', { token: c.tokens.member.write, body: { name: 'From lists', template: body.template.id } })
      assertSubset(made.body, {
        statuses: [
          { name: 'A', category: 'unstarted' },
          { name: 'B', category: 'completed' },
        ],
        tags: [],
        xattr_fields: [],
      })
    },
  },
  {
    name: 'both board and content are refused',
    method: 'POST',
    path: '/v1/templates',
    body: (c) => ({ name: 'X', board: c.board.id, content: CONTENT }),
    status: 422,
    field: 'content',
  },
  {
    name: 'a list bound to a status that is not there is refused',
    method: 'POST',
    path: '/v1/templates',
    body: () => ({ name: 'X', content: { ...CONTENT, lists: [{ name: 'Inbox', status: 'Nope' }] } }),
    status: 422,
    field: 'content.lists.0.status',
  },
  {
    name: 'a card in a list that is not there is refused',
    method: 'POST',
    path: '/v1/templates',
    body: () => ({ name: 'X', content: { ...CONTENT, cards: [{ title: 'Y', list: 'Nope' }] } }),
    status: 422,
    field: 'content.cards.0.list',
  },
  {
    name: 'a rollup of a field that is not a number is refused',
    method: 'POST',
    path: '/v1/templates',
    body: () => ({
      name: 'X',
      content: { lists: [{ name: 'L' }], xattr_fields: [{ name: 'Sum', key: 'sum', type: 'rollup', rollup: { field: 'nope', over: 'subtasks', fn: 'sum' } }] },
    }),
    status: 422,
    field: 'content.xattr_fields.0.rollup.field',
  },
  {
    name: 'a formula that does not parse is refused',
    method: 'POST',
    path: '/v1/templates',
    body: () => ({ name: 'X', content: { lists: [{ name: 'L' }], xattr_fields: [{ name: 'F', key: 'f', type: 'formula', formula: '1 +' }] } }),
    status: 422,
    field: 'content.xattr_fields.0.formula',
  },
  {
    name: 'content without lists is refused',
    method: 'POST',
    path: '/v1/templates',
    body: () => ({ name: 'X', content: { lists: [] } }),
    status: 422,
    field: 'content.lists',
  },
  {
    name: 'too many cards are refused',
    method: 'POST',
    path: '/v1/templates',
    body: () => ({ name: 'X', content: { lists: [{ name: 'L' }], cards: Array.from({ length: 501 }, () => ({ title: 'c', list: 'L' })) } }),
    status: 422,
    field: 'content.cards',
  },
  {
    name: 'a template together with lists is refused',
    method: 'POST',
    path: '/v1/boards',
    body: (c) => ({ name: 'Bad', template: c.theirs.id, lists: ['A'] }),
    status: 422,
    field: 'lists',
  },
  {
    name: 'a template that is gone is refused',
    method: 'POST',
    path: '/v1/boards',
    body: () => ({ name: 'Bad', template: 'nope' }),
    status: 422,
    field: 'template',
  },
  {
    name: 'a board the caller cannot see cannot be snapshot',
    method: 'POST',
    path: '/v1/templates',
    token: (c) => c.tokens.outsider.write,
    body: (c) => ({ name: 'X', board: c.board.id }),
    status: 404,
  },
  {
    name: 'a read token cannot create',
    method: 'POST',
    path: '/v1/templates',
    token: (c) => c.tokens.member.read,
    body: () => ({ name: 'X', content: CONTENT }),
    status: 403,
  },
  {
    name: 'every member reads every template',
    method: 'GET',
    path: '/v1/templates?sort=name',
    token: (c) => c.tokens.outsider.read,
    status: 200,
    after: (_c, body) => {
      const names = body.items.map((t: any) => t.name)
      assert.ok(
        ['Full', 'Plain', 'Theirs'].every((n) => names.includes(n)),
        names.join(),
      )
      assert.deepEqual(names, [...names].sort())
    },
  },
  {
    name: 'the list filters',
    method: 'GET',
    path: (c) => `/v1/templates?filter=${encodeURIComponent(`created_by = "${c.outsider.id}"`)}`,
    status: 200,
    expect: () => ({ items: [{ name: 'Theirs' }], totalItems: 1 }),
  },
  {
    name: 'another member cannot change a template they did not make',
    method: 'PATCH',
    path: (c) => `/v1/templates/${c.theirs.id}`,
    body: () => ({ name: 'Mine' }),
    status: 403,
  },
  {
    name: 'another member cannot delete it',
    method: 'DELETE',
    path: (c) => `/v1/templates/${c.theirs.id}`,
    status: 403,
  },
  {
    name: 'an admin changes it, with its event',
    method: 'PATCH',
    path: (c) => `/v1/templates/${c.theirs.id}`,
    token: (c) => c.tokens.admin.write,
    body: () => ({ name: 'Renamed', description: 'by an admin' }),
    status: 200,
    events: ['template.updated'],
    expect: () => ({ template: { name: 'Renamed', description: 'by an admin' } }),
  },
  {
    name: 'changed content is checked too',
    method: 'PATCH',
    path: (c) => `/v1/templates/${c.plain.id}`,
    body: () => ({ content: { ...CONTENT, tags: [{ name: 'x' }, { name: 'X' }] } }),
    status: 422,
    field: 'content.tags.1.name',
  },
  {
    name: 'the creator deletes theirs, with its event',
    method: 'DELETE',
    path: (c) => `/v1/templates/${c.plain.id}`,
    status: 204,
    events: ['template.deleted'],
    after: async (c) => assert.equal((await c.t.req('GET', `/v1/templates/${c.plain.id}`, { token: c.tokens.member.read })).status, 404),
  },
])

test('templates: a board whose snapshot would pass 1 MB is refused (422 naming board), and nothing is stored', async () => {
  const c = await ready
  const tok = c.tokens.member.write
  const board = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Wordy', key_prefix: 'WRD' } })).body.board
  for (let i = 0; i < 11; i++)
    assert.equal(
      (await c.t.req('POST', '/v1/cards', { token: tok, body: { board: board.id, title: `long ${i}`, description: 'x'.repeat(100_000) } })).status,
      201,
    )
  const count = async () => Number((await dbAll<{ n: number }>(c.t.deps.db, 'SELECT COUNT(*) AS n FROM templates'))[0].n)
  const before = await count()
  const r = await c.t.req('POST', '/v1/templates', { token: tok, body: { board: board.id, name: 'Too wordy', include_cards: true } })
  assert.equal(r.status, 422, r.text)
  assert.ok(
    r.body.error.details.some((d: { path: string }) => d.path === 'board'),
    r.text,
  )
  assert.equal(await count(), before)
  // Without its cards the same board is a small template.
  assert.equal((await c.t.req('POST', '/v1/templates', { token: tok, body: { board: board.id, name: 'Just the lists' } })).status, 201)
})
