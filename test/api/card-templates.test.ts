// Card templates through HTTP, on one fixture: create, read, list, change and delete with the permission matrix and
// cross-board visibility; validation (422 naming the field, 409 on a name clash); and a card made from a template: its
// fields filled, explicit fields winning, a tag, user or custom field that is gone skipped, its checklist made.
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
    const tag = async (name: string) => (await req('POST', '/v1/tags', { board: s.board.id, name })).tag
    const field = async (body: Record<string, unknown>) => (await req('POST', '/v1/xattr', { board: s.board.id, ...body })).xattr_field
    const bug = await tag('bug'),
      ui = await tag('ui'),
      doomed = await tag('doomed')
    await field({ name: 'Estimate', type: 'number' })
    const stage = await field({ name: 'Stage', type: 'select', options: ['Design', 'Build'] })
    const design = (stage.options as { id: string; name: string }[]).find((o) => o.name === 'Design')!.id
    const gone = await field({ name: 'Gone', type: 'number' })
    await field({ name: 'Subtotal', type: 'rollup', rollup: { field: 'estimate', over: 'subtasks', fn: 'sum' } })
    const leaver = await t.user('member', 'Leaver', 'leaver@card-templates.example.test')
    await req('POST', `/v1/boards/${s.board.id}/members`, { user: leaver.id }, tokens.owner.write)
    const template = (
      await req('POST', '/v1/card-templates', {
        board: s.board.id,
        name: 'Bug report',
        title: 'Bug: ',
        description: '## Steps',
        priority: 3,
        tags: [bug.id, doomed.id],
        assignees: [s.member.id, leaver.id],
        checklist: ['Reproduce', 'Fix'],
        xattr: { estimate: 2, stage: 'Design', gone: 5 },
      })
    ).card_template
    const bare = (await req('POST', '/v1/card-templates', { board: s.board.id, name: 'Bare' })).card_template
    // What the template names goes away after it was saved.
    await req('DELETE', `/v1/tags/${doomed.id}`, undefined, tokens.member.write, 204)
    await req('DELETE', `/v1/xattr/${gone.id}`, undefined, tokens.member.write, 204)
    await req('DELETE', `/v1/boards/${s.board.id}/members/${leaver.id}`, undefined, tokens.owner.write, 204)
    const other = (await req('POST', '/v1/boards', { name: 'Other', key_prefix: 'OTH' }, tokens.outsider.write)).board
    const theirTag = (await req('POST', '/v1/tags', { board: other.id, name: 'theirs' }, tokens.outsider.write)).tag
    const theirs = (await req('POST', '/v1/card-templates', { board: other.id, name: 'Theirs', title: 'T' }, tokens.outsider.write)).card_template
    return { design, bug, ui, doomed, leaver, template, bare, other, theirTag, theirs }
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

run('card templates', [
  {
    name: 'the saved template reads back as it was given',
    method: 'GET',
    path: (c) => `/v1/card-templates/${c.template.id}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c) => ({
      card_template: {
        board: c.board.id,
        name: 'Bug report',
        title: 'Bug:',
        description: '## Steps',
        priority: 3,
        tags: [c.bug.id, c.doomed.id],
        assignees: [c.member.id, c.leaver.id],
        checklist: ['Reproduce', 'Fix'],
        xattr: { estimate: 2, stage: 'Design', gone: 5 },
      },
    }),
  },
  {
    name: 'a bare template has the defaults',
    method: 'GET',
    path: (c) => `/v1/card-templates/${c.bare.id}`,
    status: 200,
    expect: () => ({ card_template: { title: '', description: '', priority: null, tags: [], assignees: [], checklist: [], xattr: {} } }),
  },
  {
    name: 'a writer creates one, with its event',
    method: 'POST',
    path: '/v1/card-templates',
    body: (c) => ({ board: c.board.id, name: 'Chore', title: 'Chore', tags: [c.ui.id] }),
    status: 201,
    events: ['card_template.created'],
    expect: (c) => ({ card_template: { board: c.board.id, name: 'Chore', tags: [c.ui.id] } }),
  },
  {
    name: 'a name that folds alike clashes',
    method: 'POST',
    path: '/v1/card-templates',
    body: (c) => ({ board: c.board.id, name: 'BUG REPORT' }),
    status: 409,
    events: [],
  },
  {
    name: 'a tag of another board is refused',
    method: 'POST',
    path: '/v1/card-templates',
    body: (c) => ({ board: c.board.id, name: 'X', tags: [c.theirTag.id] }),
    status: 422,
    field: 'tags',
  },
  {
    name: 'an assignee who is not a member is refused',
    method: 'POST',
    path: '/v1/card-templates',
    body: (c) => ({ board: c.board.id, name: 'X', assignees: [c.outsider.id] }),
    status: 422,
    field: 'assignees',
  },
  {
    name: 'an unknown custom field key is refused',
    method: 'POST',
    path: '/v1/card-templates',
    body: (c) => ({ board: c.board.id, name: 'X', xattr: { nope: 1 } }),
    status: 422,
    field: 'xattr.nope',
  },
  {
    name: 'a computed custom field is refused',
    method: 'POST',
    path: '/v1/card-templates',
    body: (c) => ({ board: c.board.id, name: 'X', xattr: { subtotal: 1 } }),
    status: 422,
    field: 'xattr.subtotal',
  },
  {
    name: 'a priority out of range is refused',
    method: 'POST',
    path: '/v1/card-templates',
    body: (c) => ({ board: c.board.id, name: 'X', priority: 9 }),
    status: 422,
    field: 'priority',
  },
  {
    name: 'too many checklist items are refused',
    method: 'POST',
    path: '/v1/card-templates',
    body: (c) => ({ board: c.board.id, name: 'X', checklist: Array.from({ length: 101 }, (_, i) => `item ${i}`) }),
    status: 422,
    field: 'checklist',
  },
  {
    name: 'a read token cannot create',
    method: 'POST',
    path: '/v1/card-templates',
    token: (c) => c.tokens.member.read,
    body: (c) => ({ board: c.board.id, name: 'X' }),
    status: 403,
  },
  {
    name: "another board's member cannot create on the board",
    method: 'POST',
    path: '/v1/card-templates',
    token: (c) => c.tokens.outsider.write,
    body: (c) => ({ board: c.board.id, name: 'X' }),
    status: 404,
  },
  {
    name: "another board's member does not see the template",
    method: 'GET',
    path: (c) => `/v1/card-templates/${c.template.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: "another board's member cannot change it",
    method: 'PATCH',
    path: (c) => `/v1/card-templates/${c.template.id}`,
    token: (c) => c.tokens.outsider.write,
    body: () => ({ name: 'Mine' }),
    status: 404,
  },
  {
    name: 'a read token cannot delete',
    method: 'DELETE',
    path: (c) => `/v1/card-templates/${c.template.id}`,
    token: (c) => c.tokens.member.read,
    status: 403,
  },
  {
    name: 'the list shows the visible boards’ templates only, by name',
    method: 'GET',
    path: '/v1/card-templates',
    token: (c) => c.tokens.member.read,
    status: 200,
    after: (c, body) => {
      const names = body.items.map((t: { name: string }) => t.name)
      assert.ok(!names.includes('Theirs'))
      assert.deepEqual(names, [...names].sort())
      assert.ok(names.includes('Bug report') && names.includes('Bare'))
    },
  },
  {
    name: 'the list filters, sorts and expands',
    method: 'GET',
    path: (c) => `/v1/card-templates?board=${c.board.id}&filter=${encodeURIComponent('name ~ "bug"')}&sort=-created&expand=board`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c) => ({ items: [{ name: 'Bug report', expand: { board: { id: c.board.id } } }], totalItems: 1 }),
  },
  {
    name: 'a card made from the template: filled, with what is gone skipped and its checklist made',
    method: 'POST',
    path: '/v1/cards',
    body: (c) => ({ board: c.board.id, template: c.template.id }),
    status: 201,
    expect: (c) => ({ card: { title: 'Bug:', description: '## Steps', priority: 3, tags: [c.bug.id], assignees: [c.member.id] } }),
    after: async (c, body) => {
      const xattr = body.card.xattr
      assert.equal(xattr.estimate, 2)
      assert.equal(xattr.stage, c.design, 'the template’s option, by its id')
      assert.ok(!('gone' in xattr), JSON.stringify(xattr))
      const lists = await c.t.req('GET', `/v1/checklists?card=${body.card.id}`, { token: c.tokens.member.read })
      assert.equal(lists.status, 200, lists.text)
      assert.equal(lists.body.items.length, 1)
      assertSubset(lists.body.items[0], {
        title: 'Bug report',
        items: [
          { text: 'Reproduce', position: 1 },
          { text: 'Fix', position: 2 },
        ],
      })
    },
  },
  {
    name: 'explicit fields win over the template’s, custom fields merged by key',
    method: 'POST',
    path: '/v1/cards',
    body: (c) => ({ board: c.board.id, template: c.template.id, title: 'Login fails', priority: 1, tags: [c.ui.id], assignees: [], xattr: { estimate: 8 } }),
    status: 201,
    expect: (c) => ({ card: { title: 'Login fails', description: '## Steps', priority: 1, tags: [c.ui.id], assignees: [] } }),
    after: (c, body) => {
      assert.equal(body.card.xattr.estimate, 8)
      assert.equal(body.card.xattr.stage, c.design)
    },
  },
  {
    name: 'a template without a title needs one from the create',
    method: 'POST',
    path: '/v1/cards',
    body: (c) => ({ board: c.board.id, template: c.bare.id }),
    status: 422,
    field: 'title',
  },
  {
    name: 'without a template the title is still required',
    method: 'POST',
    path: '/v1/cards',
    body: (c) => ({ board: c.board.id }),
    status: 422,
    field: 'title',
  },
  {
    name: 'a template of another board is refused',
    method: 'POST',
    path: '/v1/cards',
    body: (c) => ({ board: c.board.id, template: c.theirs.id }),
    status: 422,
    field: 'template',
  },
  {
    name: 'a writer changes a template, with its event',
    method: 'PATCH',
    path: (c) => `/v1/card-templates/${c.bare.id}`,
    body: () => ({ title: 'Plain', checklist: ['One'] }),
    status: 200,
    events: ['card_template.updated'],
    expect: () => ({ card_template: { name: 'Bare', title: 'Plain', checklist: ['One'] } }),
  },
  {
    name: 'a writer deletes a template, with its event; it is gone',
    method: 'DELETE',
    path: (c) => `/v1/card-templates/${c.bare.id}`,
    status: 204,
    events: ['card_template.deleted'],
    after: async (c) => assert.equal((await c.t.req('GET', `/v1/card-templates/${c.bare.id}`, { token: c.tokens.member.read })).status, 404),
  },
])
