// Forms through HTTP, on one fixture: create, read, list, change and delete with the permission matrix (board admins
// manage, members read, other boards' members see nothing, read tokens write nothing) and every check of the fields
// and their mappings; the public address as JSON and as a page without script (CSP, escaping); submissions as JSON,
// urlencoded and multipart with a file, each answer checked (422 naming the key), the card they make (title, mapped
// fields, the escaped Markdown list, created_by null, the actor { kind: "form" }), the honeypot, the limit of 10 a minute
// per form and sender (on the test's clock), and a closed form or one on a trashed board answering 404 at once.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { after, test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { renderMarkdown } from '../../src/resources/note-publications/markdown.js'
import { seededFixture } from '../helpers/app.js'
import { dbAll } from '../helpers/db.js'
import { assertErrorShape, assertSubset } from '../helpers/scenarios.js'

type Field = { key: string; label: string; type: string; required?: boolean; options?: string[]; maps_to?: string | null }

const BUG_FIELDS: Field[] = [
  { key: 'summary', label: 'Summary', type: 'text', required: true, maps_to: 'title' },
  { key: 'details', label: 'Details', type: 'long_text', maps_to: 'description' },
  { key: 'email', label: 'Your email', type: 'email', required: true },
  { key: 'severity', label: 'Severity', type: 'select', options: ['none', 'low', 'medium', 'high', 'urgent'], maps_to: 'priority' },
  { key: 'due', label: 'Needed by', type: 'date', maps_to: 'due_date' },
  { key: 'points', label: 'Points', type: 'number', maps_to: 'xattr.points' },
  { key: 'area', label: 'Area', type: 'select', options: ['UI', 'API'], maps_to: 'xattr.area' },
  { key: 'notes', label: 'Notes [extra]', type: 'long_text' },
  { key: 'age', label: 'Age', type: 'number' },
  { key: 'screenshot', label: 'Screenshot', type: 'file' },
  { key: 'site', label: 'Site', type: 'text', maps_to: 'xattr.site' },
]

const ready = seededFixture(async (s) => {
  const { t, tokens } = s
  const req = async (method: string, url: string, body?: unknown, token = tokens.owner.write, status = 201) => {
    const r = await t.req(method, url, { token, body })
    assert.equal(r.status, status, `${method} ${url}: ${r.text}`)
    return r.body
  }
  // A workspace member who is an admin of the board (the seed's member is a plain member of it).
  const boss = await t.user('member', 'Board Boss', 'boss@forms.example.test')
  const bossToken = await t.token(boss.id, 'write')
  await req('POST', `/v1/boards/${s.board.id}/members`, { user: boss.id, role: 'admin' }, tokens.owner.write)
  await req('POST', '/v1/xattr', { board: s.board.id, name: 'Points', type: 'number' })
  await req('POST', '/v1/xattr', { board: s.board.id, name: 'Area', type: 'select', options: ['UI', 'API', 'Docs'] })
  await req('POST', '/v1/xattr', { board: s.board.id, name: 'Reporter', type: 'text' })
  await req('POST', '/v1/xattr', { board: s.board.id, name: 'Site', type: 'url' })
  const inbox = (await req('POST', '/v1/lists', { board: s.board.id, name: 'Inbox' })).list
  const bug = (await req('POST', '/v1/forms', { board: s.board.id, name: 'Bug report', list: inbox.id, fields: BUG_FIELDS, thank_you: 'Thanks!' }, bossToken))
    .form
  const plain = (await req('POST', '/v1/forms', { board: s.board.id, name: 'Plain', fields: [{ key: 'text', label: 'Text', type: 'text' }] })).form
  const flood = (await req('POST', '/v1/forms', { board: s.board.id, name: 'Flood', fields: [{ key: 'text', label: 'Text', type: 'text' }] })).form
  const closed = (await req('POST', '/v1/forms', { board: s.board.id, name: 'Closed', open: false, fields: [{ key: 'text', label: 'Text', type: 'text' }] }))
    .form
  const hostile = (
    await req('POST', '/v1/forms', {
      board: s.board.id,
      name: '<script>alert(1)</script>',
      slug: 'hostile',
      description: '"><img src=x onerror=alert(1)>',
      fields: [{ key: 'text', label: '<b>bold</b>', type: 'select', options: ['<i>x</i>'] }],
    })
  ).form
  const other = (await req('POST', '/v1/boards', { name: 'Other', key_prefix: 'OTH' }, tokens.outsider.write)).board
  const theirs = (
    await req('POST', '/v1/forms', { board: other.id, name: 'Theirs', fields: [{ key: 'text', label: 'Text', type: 'text' }] }, tokens.outsider.write)
  ).form
  // A board that will go to the trash, with a form on it.
  const doomed = (await req('POST', '/v1/boards', { name: 'Doomed', key_prefix: 'DMD' })).board
  const trashed = (await req('POST', '/v1/forms', { board: doomed.id, name: 'On a trashed board', fields: [{ key: 'text', label: 'Text', type: 'text' }] }))
    .form
  await req('DELETE', `/v1/boards/${doomed.id}`, undefined, tokens.owner.write, 204)
  // A board with a required custom field.
  const ops = (await req('POST', '/v1/boards', { name: 'Ops', key_prefix: 'OPS' })).board
  await req('POST', '/v1/xattr', { board: ops.id, name: 'Team', type: 'text', required: true })
  return { boss, bossToken, inbox, bug, plain, flood, closed, hostile, other, theirs, trashed, ops }
})
after(async () => (await ready).t.close())
type C = Awaited<typeof ready>

const eventSeq = async (c: C) => Number((await dbAll<{ n: number }>(c.t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))[0].n)
const eventsSince = async (c: C, seq: number) =>
  (await dbAll<{ name: string; data: string }>(c.t.deps.db, 'SELECT name, data FROM events WHERE seq > ? ORDER BY seq', seq)).map((e) => ({
    name: e.name,
    data: JSON.parse(e.data),
  }))
const count = async (c: C, table: string) => Number((await dbAll<{ n: number }>(c.t.deps.db, `SELECT count(*) AS n FROM ${table}`))[0].n)

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

function run(title: string, rows: Row[]) {
  for (const row of rows)
    test(`${title}: ${row.name}`, async () => {
      if (row.status === 422 && row.field === undefined) throw new Error('a 422 row names its field')
      const c = await ready
      const before = await eventSeq(c)
      const r = await c.t.req(row.method, typeof row.path === 'function' ? row.path(c) : row.path, {
        token: (row.token ?? ((c) => c.bossToken))(c),
        body: row.body?.(c),
      })
      assert.equal(r.status, row.status, r.text)
      if (r.status >= 400) assertErrorShape(r.body)
      if (row.field !== undefined) {
        const paths = (r.body.error.details ?? []).map((d: { path: string }) => d.path)
        assert.ok(paths.includes(row.field), `the details name ${row.field}: ${r.text}`)
      }
      if (row.events)
        assert.deepEqual(
          (await eventsSince(c, before)).map((e) => e.name),
          row.events,
        )
      if (row.expect) assertSubset(r.body, row.expect(c))
      await row.after?.(c, r.body)
    })
}

const field = (f: Partial<Field> = {}): Field => ({ key: 'text', label: 'Text', type: 'text', ...f })
const create = (c: C, body: Record<string, unknown>) => ({ board: c.board.id, name: 'Form', fields: [field()], ...body })

run('forms', [
  {
    name: 'a board admin creates a form; its slug comes from its name; form.created',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => ({ board: c.board.id, name: 'Café Feedback!', fields: [field({ required: true, maps_to: 'title' })] }),
    status: 201,
    events: ['form.created'],
    expect: (c) => ({
      form: {
        board: c.board.id,
        list: null,
        name: 'Café Feedback!',
        description: '',
        slug: 'cafe-feedback',
        url: 'http://taskd.test/v1/forms/public/cafe-feedback',
        open: true,
        fields: [{ key: 'text', label: 'Text', type: 'text', required: true, maps_to: 'title' }],
        thank_you: '',
      },
    }),
  },
  {
    name: 'the same name again gets the next free slug',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => ({ board: c.board.id, name: 'Café feedback', fields: [field()] }),
    status: 201,
    expect: () => ({ form: { slug: 'cafe-feedback-2', fields: [{ required: false, maps_to: null }] } }),
  },
  { name: 'a slug asked for that is taken is a 409', method: 'POST', path: '/v1/forms', body: (c) => create(c, { slug: 'plain' }), status: 409, events: [] },
  {
    name: 'a workspace admin (a plain member of the board) creates one',
    method: 'POST',
    path: '/v1/forms',
    token: (c) => c.tokens.admin.write,
    body: (c) => create(c, { slug: 'by-admin' }),
    status: 201,
  },
  {
    name: 'a plain member of the board cannot create: 403',
    method: 'POST',
    path: '/v1/forms',
    token: (c) => c.tokens.member.write,
    body: (c) => create(c, {}),
    status: 403,
    events: [],
  },
  {
    name: "another board's member cannot create on the board: 404",
    method: 'POST',
    path: '/v1/forms',
    token: (c) => c.tokens.outsider.write,
    body: (c) => create(c, {}),
    status: 404,
  },
  { name: 'a read token cannot create: 403', method: 'POST', path: '/v1/forms', token: (c) => c.tokens.owner.read, body: (c) => create(c, {}), status: 403 },
  {
    name: 'a member of the board reads a form with its board expanded',
    method: 'GET',
    path: (c) => `/v1/forms/${c.bug.id}?expand=board`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c) => ({ form: { id: c.bug.id, slug: 'bug-report', list: c.inbox.id, thank_you: 'Thanks!', expand: { board: { id: c.board.id } } } }),
  },
  {
    name: "another board's member does not see it: 404",
    method: 'GET',
    path: (c) => `/v1/forms/${c.bug.id}`,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'a plain member cannot change it: 403',
    method: 'PATCH',
    path: (c) => `/v1/forms/${c.bug.id}`,
    token: (c) => c.tokens.member.write,
    body: () => ({ open: false }),
    status: 403,
  },
  {
    name: "another board's member cannot change it: 404",
    method: 'PATCH',
    path: (c) => `/v1/forms/${c.bug.id}`,
    token: (c) => c.tokens.outsider.write,
    body: () => ({ open: false }),
    status: 404,
  },
  {
    name: 'a plain member cannot delete it: 403',
    method: 'DELETE',
    path: (c) => `/v1/forms/${c.bug.id}`,
    token: (c) => c.tokens.member.write,
    status: 403,
  },
  { name: 'a read token cannot delete it: 403', method: 'DELETE', path: (c) => `/v1/forms/${c.bug.id}`, token: (c) => c.tokens.owner.read, status: 403 },
  {
    name: 'the list shows the visible boards’ forms, filtered, sorted and paged',
    method: 'GET',
    path: () => `/v1/forms?filter=${encodeURIComponent('open = true && name ~ "o"')}&sort=-name&per_page=2`,
    token: (c) => c.tokens.member.read,
    status: 200,
    after: (_c, body) => {
      assert.equal(body.perPage, 2)
      const names = body.items.map((f: { name: string }) => f.name)
      assert.deepEqual(names, [...names].sort().reverse())
      assert.ok(!names.includes('Theirs') && !names.includes('Closed'), names.join())
    },
  },
  {
    name: 'the list of a board, expanded',
    method: 'GET',
    path: (c) => `/v1/forms?board=${c.board.id}&filter=${encodeURIComponent('slug = "bug-report"')}&expand=board`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c) => ({ totalItems: 1, items: [{ id: c.bug.id, expand: { board: { id: c.board.id } } }] }),
  },
  {
    name: "another board's member lists only their own",
    method: 'GET',
    path: '/v1/forms',
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: (c) => ({ totalItems: 1, items: [{ id: c.theirs.id }] }),
  },
  { name: 'an unknown sort field is a 400', method: 'GET', path: '/v1/forms?sort=nope', token: (c) => c.tokens.member.read, status: 400 },
  // Validation: 422 naming the field.
  { name: 'fields are required', method: 'POST', path: '/v1/forms', body: (c) => ({ board: c.board.id, name: 'X' }), status: 422, field: 'fields' },
  {
    name: 'a key must be a slug',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ key: 'Bad Key' })] }),
    status: 422,
    field: 'fields.0.key',
  },
  {
    name: 'a key used twice',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field(), field({ label: 'Again' })] }),
    status: 422,
    field: 'fields.1.key',
  },
  {
    name: 'an unknown type',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ type: 'color' })] }),
    status: 422,
    field: 'fields.0.type',
  },
  {
    name: 'a select needs options',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ type: 'select' })] }),
    status: 422,
    field: 'fields.0.options',
  },
  {
    name: 'options are for selects only',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ options: ['a'] })] }),
    status: 422,
    field: 'fields.0.options',
  },
  {
    name: 'options must be distinct',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ type: 'select', options: ['a', 'A'] })] }),
    status: 422,
    field: 'fields.0.options',
  },
  {
    name: 'an unknown mapping',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ maps_to: 'assignees' })] }),
    status: 422,
    field: 'fields.0.maps_to',
  },
  {
    name: 'a mapping used twice',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ maps_to: 'title' }), field({ key: 'b', maps_to: 'title' })] }),
    status: 422,
    field: 'fields.1.maps_to',
  },
  {
    name: 'a text field cannot be the due date',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ maps_to: 'due_date' })] }),
    status: 422,
    field: 'fields.0.maps_to',
  },
  {
    name: 'a file cannot be mapped',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ type: 'file', maps_to: 'description' })] }),
    status: 422,
    field: 'fields.0.maps_to',
  },
  {
    name: 'a priority select must list priority names',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ type: 'select', options: ['high', 'asap'], maps_to: 'priority' })] }),
    status: 422,
    field: 'fields.0.maps_to',
  },
  {
    name: 'xattr.<key> must be a custom field of the board',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ maps_to: 'xattr.nope' })] }),
    status: 422,
    field: 'fields.0.maps_to',
  },
  {
    name: 'xattr.<key> must take the field’s answers (text into a number field)',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ maps_to: 'xattr.points' })] }),
    status: 422,
    field: 'fields.0.maps_to',
  },
  {
    name: 'a select into a select custom field must use its options',
    method: 'POST',
    path: '/v1/forms',
    body: (c) => create(c, { fields: [field({ type: 'select', options: ['UI', 'Mobile'], maps_to: 'xattr.area' })] }),
    status: 422,
    field: 'fields.0.maps_to',
  },
  {
    name: 'a list of another board',
    method: 'POST',
    path: '/v1/forms',
    token: (c) => c.tokens.owner.write,
    body: (c) => create(c, { list: c.lists[0].id, board: c.ops.id }),
    status: 422,
    field: 'list',
  },
  { name: 'a slug must be a slug', method: 'POST', path: '/v1/forms', body: (c) => create(c, { slug: 'Not a slug' }), status: 422, field: 'slug' },
  {
    name: 'a required custom field of the board must be filled by a required field',
    method: 'POST',
    path: '/v1/forms',
    token: (c) => c.tokens.owner.write,
    body: (c) => ({ board: c.ops.id, name: 'Ops request', fields: [field({ maps_to: 'xattr.team' })] }),
    status: 422,
    field: 'fields',
  },
  {
    name: 'filled by a required field, it is fine',
    method: 'POST',
    path: '/v1/forms',
    token: (c) => c.tokens.owner.write,
    body: (c) => ({ board: c.ops.id, name: 'Ops request', fields: [field({ required: true, maps_to: 'xattr.team' })] }),
    status: 201,
  },
  { name: 'an unknown property', method: 'POST', path: '/v1/forms', body: (c) => create(c, { color: 'red' }), status: 422, field: 'color' },
  // Changes and deletion.
  {
    name: 'a change that changes nothing emits nothing',
    method: 'PATCH',
    path: (c) => `/v1/forms/${c.bug.id}`,
    body: () => ({ name: 'Bug report' }),
    status: 200,
    events: [],
  },
  { name: 'a slug another form has is a 409', method: 'PATCH', path: (c) => `/v1/forms/${c.bug.id}`, body: () => ({ slug: 'plain' }), status: 409 },
  {
    name: 'fields are checked on a change too',
    method: 'PATCH',
    path: (c) => `/v1/forms/${c.plain.id}`,
    body: () => ({ fields: [field({ maps_to: 'xattr.nope' })] }),
    status: 422,
    field: 'fields.0.maps_to',
  },
])

const publicUrl = (c: C, slug: string) => `${c.t.url}/v1/forms/public/${slug}`
async function open(c: C, slug: string, accept = 'application/json') {
  const res = await fetch(publicUrl(c, slug), { headers: { accept } })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

/** A submission; the test clock moves 7 s first, so a file's submissions stay under 10 a minute per form. */
async function submit(c: C, slug: string, body: string | Buffer, type: string, accept = 'application/json', tick = true) {
  if (tick) c.t.clock.advance(7_000)
  const res = await fetch(publicUrl(c, slug), {
    method: 'POST',
    headers: { 'content-type': type, accept },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  })
  const text = await res.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, headers: res.headers, text, body: json }
}
const submitJson = (c: C, slug: string, answers: unknown) => submit(c, slug, JSON.stringify(answers), 'application/json')

const BOUNDARY = 'formsTestBoundary'
function multipart(parts: { name: string; value?: string; filename?: string; type?: string; data?: Buffer }[]): Buffer {
  return Buffer.concat([
    ...parts.flatMap((p) => [
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}\r\n` +
          (p.type ? `Content-Type: ${p.type}\r\n` : '') +
          '\r\n',
      ),
      p.data ?? Buffer.from(p.value ?? ''),
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ])
}
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`

const cardOf = async (c: C, id: string) => {
  const r = await c.t.req('GET', `/v1/cards/${id}`, { token: c.tokens.owner.read })
  assert.equal(r.status, 200, r.text)
  return r.body.card
}

test('the public address answers the definition as JSON: no token, no mappings, no-store', async () => {
  const c = await ready
  const r = await open(c, 'bug-report')
  assert.equal(r.status, 200, r.text)
  assert.equal(r.headers.get('cache-control'), 'no-store')
  const { form } = JSON.parse(r.text)
  assert.deepEqual(Object.keys(form).sort(), ['description', 'fields', 'name'])
  assert.equal(form.name, 'Bug report')
  assert.deepEqual(form.fields[0], { key: 'summary', label: 'Summary', type: 'text', required: true })
  assert.deepEqual(form.fields[3].options, ['none', 'low', 'medium', 'high', 'urgent'])
  assert.ok(form.fields.every((f: object) => !('maps_to' in f)))
  for (const slug of ['nope', 'closed', 'on-a-trashed-board', 'UPPER', '%00']) {
    const gone = await open(c, slug)
    assert.equal(gone.status, 404, slug)
    assertErrorShape(JSON.parse(gone.text))
  }
})

test('the public page: plain HTML with no script, a strict CSP, everything escaped, multipart only with a file field', async () => {
  const c = await ready
  const r = await open(c, 'bug-report', 'text/html,application/xhtml+xml,*/*;q=0.8')
  assert.equal(r.status, 200)
  assert.match(r.headers.get('content-type') ?? '', /^text\/html/)
  const csp = r.headers.get('content-security-policy') ?? ''
  assert.match(csp, /default-src 'none'/)
  assert.match(csp, /form-action 'self'/)
  assert.doesNotMatch(csp, /script-src|unsafe-eval/)
  assert.doesNotMatch(r.text, /<script/i)
  assert.match(r.text, /<form method="post" enctype="multipart\/form-data">/)
  assert.match(r.text, /<input id="f-summary" name="summary" type="text"[^>]* required>/)
  assert.match(r.text, /<textarea id="f-details" name="details"/)
  assert.match(r.text, /<input id="f-due" name="due" type="date"/)
  assert.match(r.text, /<input id="f-screenshot" name="screenshot" type="file">/)
  assert.match(r.text, /<option>high<\/option>/)
  assert.match(r.text, /name="_hp" type="text" tabindex="-1"/, 'the honeypot')
  assert.match(r.text, /Notes \[extra\]/)

  const plain = await open(c, 'plain', 'text/html')
  assert.match(plain.text, /<form method="post">/, 'urlencoded without a file field')

  const hostile = await open(c, 'hostile', 'text/html')
  assert.equal(hostile.status, 200)
  assert.doesNotMatch(hostile.text, /<script|<img|<b>|<i>/i)
  assert.match(hostile.text, /<title>&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/title>/)
  assert.match(hostile.text, /&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;/)
  assert.match(hostile.text, /<option>&lt;i&gt;x&lt;\/i&gt;<\/option>/)

  const gone = await open(c, 'closed', 'text/html')
  assert.equal(gone.status, 404)
  assert.match(gone.headers.get('content-type') ?? '', /^text\/html/)
  assert.match(gone.headers.get('content-security-policy') ?? '', /default-src 'none'/)
})

test('a JSON submission makes a card on the form’s list: title, description list, priority, due date, custom fields; created by the form', async () => {
  const c = await ready
  const before = await eventSeq(c)
  const r = await submitJson(c, 'bug-report', {
    summary: '  Export   fails\non big boards ',
    details: 'It *breaks* [here](https://evil.example)',
    email: 'ana@example.com',
    severity: 'HIGH',
    due: '2027-01-31',
    points: '3.5',
    area: 'api',
    notes: 'line one\n# not a heading\n<img src=x onerror=alert(1)> [x](javascript:alert(1))',
    age: 42,
    _hp: '',
  })
  assert.equal(r.status, 201, r.text)
  assert.deepEqual(Object.keys(r.body.submission).sort(), ['id', 'message'])
  assert.equal(r.body.submission.message, 'Thanks!')
  const card = await cardOf(c, r.body.submission.id)
  assert.equal(card.title, 'Export fails on big boards')
  assert.equal(card.list, c.inbox.id)
  assert.equal(card.priority, 3)
  assert.equal(card.due_date, '2027-01-31')
  assert.deepEqual([card.xattr.points, card.xattr.area !== undefined], [3.5, true])
  assert.equal(card.created_by, null)
  assert.equal(
    card.description,
    [
      'It \\*breaks\\* \\[here\\]\\(https\\:\\/\\/evil\\.example\\)',
      '',
      '- **Your email**: ana\\@example\\.com',
      '- **Notes \\[extra\\]**: line one',
      '  \\# not a heading',
      '  \\<img src\\=x onerror\\=alert\\(1\\)\\> \\[x\\]\\(javascript\\:alert\\(1\\)\\)',
      '- **Age**: 42',
    ].join('\n'),
  )
  const html = renderMarkdown(card.description)
  assert.doesNotMatch(html, /<a |<img|<h1|<em>/, html)
  assert.match(html, /<strong>Your email<\/strong>/)
  const events = await eventsSince(c, before)
  assert.deepEqual(
    events.map((e) => e.name),
    ['card.created'],
  )
  assert.deepEqual(events[0].data.actor, { id: c.bug.id, name: 'Bug report', kind: 'form' })
  assert.equal(events[0].data.created_by, null)
})

test('an urlencoded submission; a form without a list fills the board’s first list, titled "<name> submission"', async () => {
  const c = await ready
  const r = await submit(c, 'plain', 'text=Hello+there%21&_hp=', 'application/x-www-form-urlencoded')
  assert.equal(r.status, 201, r.text)
  const card = await cardOf(c, r.body.submission.id)
  assert.equal(card.title, 'Plain submission')
  assert.equal(card.list, c.lists[0].id)
  assert.equal(card.description, '- **Text**: Hello there\\!')
  assert.equal(r.body.submission.message, 'Thank you: your submission was received.')
  const empty = await submit(c, 'plain', '', 'application/x-www-form-urlencoded')
  assert.equal(empty.status, 201, 'nothing required: an empty submission is a card too')
})

test('a multipart submission with a file: the file is attached to the card, by no one', async () => {
  const c = await ready
  const data = crypto.randomBytes(1_500_000) // across two chunks of the store
  const r = await submit(
    c,
    'bug-report',
    multipart([
      { name: 'summary', value: 'Crash with screenshot' },
      { name: 'screenshot', filename: '../shot.png', type: 'image/png', data },
      { name: 'email', value: 'bo@example.com' },
    ]),
    MULTIPART,
  )
  assert.equal(r.status, 201, r.text)
  const card = await cardOf(c, r.body.submission.id)
  assert.equal(card.files.length, 1)
  const file = (await c.t.req('GET', `/v1/files/${card.files[0]}`, { token: c.tokens.member.read })).body.file
  assertSubset(file, { name: 'shot.png', size: data.length, content_type: 'image/png', card: card.id, created_by: null })
  assert.equal(file.sha256, crypto.createHash('sha256').update(data).digest('hex'))
  const bytes = Buffer.from(
    await (await fetch(`${c.t.url}/v1/files/${file.id}/content`, { headers: { authorization: `Bearer ${c.tokens.member.read}` } })).arrayBuffer(),
  )
  assert.ok(bytes.equals(data))
  assert.match(card.description, /- \*\*Screenshot\*\*: shot\\\.png \\\(attached\\\)/)

  // An empty file input (no file chosen) is no answer; a refused submission keeps none of its files.
  const files = await count(c, 'files')
  const noFile = await submit(
    c,
    'bug-report',
    multipart([
      { name: 'summary', value: 'x' },
      { name: 'email', value: 'bo@example.com' },
      { name: 'screenshot', filename: '', data: Buffer.alloc(0) },
    ]),
    MULTIPART,
  )
  assert.equal(noFile.status, 201, noFile.text)
  assert.equal((await cardOf(c, noFile.body.submission.id)).files.length, 0)
  const refused = await submit(
    c,
    'bug-report',
    multipart([
      { name: 'screenshot', filename: 'a.txt', data: Buffer.from('hi') },
      { name: 'email', value: 'not an email' },
    ]),
    MULTIPART,
  )
  assert.equal(refused.status, 422, refused.text)
  assert.equal(await count(c, 'files'), files)
  const stray = await submit(c, 'plain', multipart([{ name: 'text', filename: 'a.txt', data: Buffer.from('hi') }]), MULTIPART)
  assert.equal(stray.status, 422, stray.text)
  assert.deepEqual(
    stray.body.error.details.map((d: { path: string }) => d.path),
    ['text'],
  )
  assert.equal(await count(c, 'files'), files)
})

const refusals: [string, Record<string, unknown>, string][] = [
  ['a required field left out', { email: 'a@example.com' }, 'summary'],
  ['a required field left blank', { summary: '   ', email: 'a@example.com' }, 'summary'],
  ['an email that is none', { summary: 's', email: 'nope' }, 'email'],
  ['a number that is none', { summary: 's', email: 'a@example.com', points: 'three' }, 'points'],
  ['a date that is none', { summary: 's', email: 'a@example.com', due: '2027-02-30' }, 'due'],
  ['an option the select lacks', { summary: 's', email: 'a@example.com', severity: 'critical' }, 'severity'],
  ['a key the form lacks', { summary: 's', email: 'a@example.com', nope: 'x' }, 'nope'],
  ['a file field answered with text', { summary: 's', email: 'a@example.com', screenshot: 'x.png' }, 'screenshot'],
  ['text past 1,000 characters', { summary: 'x'.repeat(1001), email: 'a@example.com' }, 'summary'],
  ['text where a number is not', { summary: 5, email: 'a@example.com' }, 'summary'],
  ['an object', { summary: { a: 1 }, email: 'a@example.com' }, 'summary'],
  ['a value its custom field refuses (named by the form’s key)', { summary: 's', email: 'a@example.com', site: 'not a url' }, 'site'],
]
for (const [name, answers, key] of refusals)
  test(`a submission is refused, nothing stored, 422 naming the key: ${name}`, async () => {
    const c = await ready
    const cards = await count(c, 'cards')
    const r = await submitJson(c, 'bug-report', answers)
    assert.equal(r.status, 422, r.text)
    assertErrorShape(r.body)
    assert.ok(
      r.body.error.details.some((d: { path: string }) => d.path === key),
      r.text,
    )
    assert.equal(await count(c, 'cards'), cards)
  })

test('bodies that are not answers: 400 for bad JSON or a list, 415 for another type, 413 past 1 MB', async () => {
  const c = await ready
  assert.equal((await submit(c, 'plain', '{"text":', 'application/json')).status, 400)
  assert.equal((await submit(c, 'plain', '["x"]', 'application/json')).status, 400)
  assert.equal((await submit(c, 'plain', 'text', 'text/plain')).status, 415)
  const big = await submit(c, 'plain', JSON.stringify({ text: 'x'.repeat(1_100_000) }), 'application/json')
  assert.equal(big.status, 413)
  assertErrorShape(big.body)
})

test('the honeypot: a filled-in _hp answers the same 201 and keeps nothing, files included', async () => {
  const c = await ready
  const [cards, files, events] = [await count(c, 'cards'), await count(c, 'files'), await eventSeq(c)]
  const r = await submitJson(c, 'bug-report', { summary: 'Buy pills', email: 'spam@example.com', _hp: 'http://spam.example' })
  assert.equal(r.status, 201, r.text)
  assert.deepEqual(Object.keys(r.body.submission).sort(), ['id', 'message'])
  assert.equal(r.body.submission.message, 'Thanks!')
  const invalidToo = await submitJson(c, 'bug-report', { email: 'bad', _hp: 'x' })
  assert.equal(invalidToo.status, 201, 'a bot learns nothing from a refusal either')
  const withFile = await submit(
    c,
    'bug-report',
    multipart([
      { name: 'screenshot', filename: 'a.png', data: Buffer.from('png') },
      { name: '_hp', value: 'x' },
    ]),
    MULTIPART,
  )
  assert.equal(withFile.status, 201, withFile.text)
  assert.deepEqual([await count(c, 'cards'), await count(c, 'files'), await eventSeq(c)], [cards, files, events])
})

test('10 submissions a minute per form and sender: the 11th is 429 with Retry-After, a minute later it is fine', async () => {
  const c = await ready
  for (let i = 0; i < 10; i++) assert.equal((await submit(c, 'flood', `text=${i}`, 'application/x-www-form-urlencoded', 'application/json', false)).status, 201)
  const over = await submit(c, 'flood', 'text=11', 'application/x-www-form-urlencoded', 'application/json', false)
  assert.equal(over.status, 429, over.text)
  assertErrorShape(over.body)
  assert.equal(over.body.error.code, 'rate_limited')
  assert.ok(Number(over.headers.get('retry-after')) >= 1)
  assert.equal((await submit(c, 'plain', 'text=other+form', 'application/x-www-form-urlencoded', 'application/json', false)).status, 201, 'per form')
  c.t.clock.advance(60_001)
  assert.equal((await submit(c, 'flood', 'text=later', 'application/x-www-form-urlencoded', 'application/json', false)).status, 201)
})

test('HTML submissions: a thank-you page, or the form again with the problems and the answers, escaped', async () => {
  const c = await ready
  const ok = await submit(c, 'plain', 'text=%3Cb%3Ehi%3C%2Fb%3E', 'application/x-www-form-urlencoded', 'text/html')
  assert.equal(ok.status, 201, ok.text)
  assert.match(ok.headers.get('content-type') ?? '', /^text\/html/)
  assert.match(ok.headers.get('content-security-policy') ?? '', /default-src 'none'/)
  assert.match(ok.text, /Thank you: your submission was received\./)
  assert.doesNotMatch(ok.text, /<script/i)
  const refused = await submit(
    c,
    'bug-report',
    'summary=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E&email=nope',
    'application/x-www-form-urlencoded',
    'text/html',
  )
  assert.equal(refused.status, 422, refused.text)
  assert.doesNotMatch(refused.text, /<script/i)
  assert.match(refused.text, /value="&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;"/)
  assert.match(refused.text, /id="f-email-err">email must be an email address\.<\/p>/)
  assert.match(refused.text, /aria-invalid="true"/)
  const gone = await submit(c, 'closed', 'text=x', 'application/x-www-form-urlencoded', 'text/html')
  assert.equal(gone.status, 404)
  assert.match(gone.text, /No open form is at this address\./)
})

test('a closed form and a form on a trashed board take nothing (404); closing and reopening apply at once', async () => {
  const c = await ready
  const cards = await count(c, 'cards')
  assert.equal((await submitJson(c, 'closed', { text: 'x' })).status, 404)
  assert.equal((await submitJson(c, 'on-a-trashed-board', { text: 'x' })).status, 404)
  const before = await eventSeq(c)
  const closing = await c.t.req('PATCH', `/v1/forms/${c.plain.id}`, { token: c.bossToken, body: { open: false } })
  assert.equal(closing.status, 200, closing.text)
  assert.deepEqual(
    (await eventsSince(c, before)).map((e) => [e.name, e.data.open]),
    [['form.updated', false]],
  )
  assert.equal((await submitJson(c, 'plain', { text: 'x' })).status, 404)
  assert.equal((await open(c, 'plain')).status, 404)
  assert.equal(await count(c, 'cards'), cards)
  await c.t.req('PATCH', `/v1/forms/${c.plain.id}`, { token: c.bossToken, body: { open: true } })
  assert.equal((await submitJson(c, 'plain', { text: 'x' })).status, 201)
})

test('a board admin renames the address and deletes a form: the old address and then the form are gone at once', async () => {
  const c = await ready
  const made = await c.t.req('POST', '/v1/forms', { token: c.bossToken, body: create(c, { name: 'Short lived' }) })
  assert.equal(made.status, 201, made.text)
  const id = made.body.form.id
  const moved = await c.t.req('PATCH', `/v1/forms/${id}`, { token: c.bossToken, body: { slug: 'moved-here', thank_you: 'Bye' } })
  assert.equal(moved.status, 200, moved.text)
  assert.equal(moved.body.form.url, 'http://taskd.test/v1/forms/public/moved-here')
  assert.equal((await open(c, 'short-lived')).status, 404)
  assert.equal((await open(c, 'moved-here')).status, 200)
  const before = await eventSeq(c)
  assert.equal((await c.t.req('DELETE', `/v1/forms/${id}`, { token: c.bossToken })).status, 204)
  assert.deepEqual(
    (await eventsSince(c, before)).map((e) => [e.name, e.data.id, e.data.actor.id]),
    [['form.deleted', id, c.boss.id]],
  )
  assert.equal((await open(c, 'moved-here')).status, 404)
  assert.equal((await c.t.req('GET', `/v1/forms/${id}`, { token: c.bossToken })).status, 404)
})

test('methods: OPTIONS lists them, another one is 405 with Allow', async () => {
  const c = await ready
  const options = await fetch(publicUrl(c, 'plain'), { method: 'OPTIONS' })
  assert.equal(options.status, 204)
  assert.equal(options.headers.get('allow'), 'GET, HEAD, POST, OPTIONS')
  const put = await fetch(publicUrl(c, 'plain'), { method: 'PUT' })
  assert.equal(put.status, 405)
  assert.equal(put.headers.get('allow'), 'GET, HEAD, POST, OPTIONS')
  assertErrorShape(await put.json())
})

test('a deleted list leaves its forms sending to the board’s first list; a board deleted for good takes its forms', async () => {
  const c = await ready
  const list = (await c.t.req('POST', '/v1/lists', { token: c.tokens.owner.write, body: { board: c.board.id, name: 'Short-lived' } })).body.list
  const made = await c.t.req('POST', '/v1/forms', { token: c.bossToken, body: create(c, { name: 'Listed', list: list.id }) })
  assert.equal(made.status, 201, made.text)
  assert.equal((await c.t.req('DELETE', `/v1/lists/${list.id}`, { token: c.tokens.owner.write })).status, 204)
  assert.equal((await c.t.req('GET', `/v1/forms/${made.body.form.id}`, { token: c.bossToken })).body.form.list, null)
  const r = await submitJson(c, 'listed', { text: 'x' })
  assert.equal(r.status, 201, r.text)
  assert.equal((await cardOf(c, r.body.submission.id)).list, c.lists[0].id)

  const forms = await count(c, 'forms')
  const gone = await c.t.req('DELETE', `/v1/boards/${c.trashed.board}?permanent=true`, { token: c.tokens.owner.write })
  assert.equal(gone.status, 204, gone.text)
  assert.equal(await count(c, 'forms'), forms - 1)
})

test('MCP: list_forms lists the forms of a board as the REST list does', async () => {
  const c = await ready
  const client = new Client({ name: 'taskd-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${c.t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${c.tokens.outsider.read}` } } }),
  )
  try {
    const listed = (await client.callTool({ name: 'list_forms', arguments: { board: c.other.id } })) as { isError?: boolean; structuredContent?: any }
    assert.ok(!listed.isError)
    assert.deepEqual(
      listed.structuredContent.items.map((f: { id: string; url: string }) => [f.id, f.url]),
      [[c.theirs.id, 'http://taskd.test/v1/forms/public/theirs']],
    )
  } finally {
    await client.close()
  }
})
