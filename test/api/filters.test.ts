// Each filter form returns exactly the right cards through GET /v1/cards, and never reaches an invisible board.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { seededApp } from '../helpers/app.js'

let c: Awaited<ReturnType<typeof seededApp>>
let hidden = ''
const titles = async (filter: string, extra = '', token = c.tokens.member.read) => {
  const r = await c.t.req('GET', `/v1/cards?per_page=100&filter=${encodeURIComponent(filter)}${extra}`, { token })
  assert.equal(r.status, 200, `${filter}: ${r.text}`)
  assert.equal(r.body.totalItems, r.body.items.length)
  return r.body.items
    .map((i: any) => i.title)
    .sort()
    .join(',')
}

before(async () => {
  c = await seededApp()
  const tok = c.tokens.member.write
  const tag = async (name: string) => (await c.t.req('POST', '/v1/tags', { token: tok, body: { board: c.board.id, name } })).body.tag.id
  const bug = await tag('bug'),
    ux = await tag('ux')
  const make = (body: Record<string, unknown>) => c.t.req('POST', '/v1/cards', { token: tok, body: { board: c.board.id, ...body } })
  await make({ title: 'Alpha report', priority: 4, tags: [bug], assignees: [c.member.id], due_date: '2026-12-01', description: '100% done_ish' })
  await make({ title: 'Beta', priority: 3, tags: [bug, ux], assignees: [c.admin.id], due_date: '2026-12-15T10:00:00Z', list: c.lists[1].id })
  await make({ title: 'Gamma "quoted"', priority: 1, tags: [ux], list: c.lists[2].id, description: 'plain' })
  const d = (await make({ title: 'Delta', priority: 0 })).body.card
  await c.t.req('POST', `/v1/cards/${d.id}/complete`, { token: tok, body: { completed: true } })
  // a board the member cannot see, with cards matching every filter below
  const other = (await c.t.req('POST', '/v1/boards', { token: c.tokens.outsider.write, body: { name: 'Hidden' } })).body.board
  hidden = other.id
  const otherTag = (await c.t.req('POST', '/v1/tags', { token: c.tokens.outsider.write, body: { board: other.id, name: 'bug' } })).body.tag.id
  await c.t.req('POST', '/v1/cards', {
    token: c.tokens.outsider.write,
    body: { board: other.id, title: 'Alpha report hidden', priority: 4, tags: [otherTag], assignees: [c.member.id], due_date: '2026-12-01' },
  })
})
after(() => c.t.close())

test('comparisons, text, null, dates, booleans', async () => {
  assert.equal(await titles('priority >= 3'), 'Alpha report,Beta')
  assert.equal(await titles('priority != 0'), 'Alpha report,Beta,Gamma "quoted"')
  assert.equal(await titles('title ~ "REPORT"'), 'Alpha report')
  assert.equal(await titles('title !~ "a"'), '')
  assert.equal(await titles('title = "Gamma \\"quoted\\""'), 'Gamma "quoted"')
  assert.equal(await titles('description ~ "100%"'), 'Alpha report')
  assert.equal(await titles('description ~ "%"'), 'Alpha report', '% is taken literally')
  assert.equal(await titles('description ~ "e_i"'), 'Alpha report', '_ is taken literally')
  assert.equal(await titles('description ~ "n_"'), '')
  assert.equal(await titles('due_date = null'), 'Delta,Gamma "quoted"')
  assert.equal(await titles('due_date != null'), 'Alpha report,Beta')
  assert.equal(await titles('due_date > "2026-12-01"'), 'Beta')
  assert.equal(await titles('due_date = "2026-12-15"'), 'Beta')
  assert.equal(await titles('due_date <= "2026-12-15T09:00:00Z"'), 'Alpha report')
  assert.equal(await titles('completed = true'), 'Delta,Gamma "quoted"', 'Delta completed, Gamma made in the completed list')
  assert.equal(await titles('created >= "2026-11-21"'), 'Alpha report,Beta,Delta,Gamma "quoted"')
})

test('precedence, grouping and negation', async () => {
  assert.equal(await titles('priority = 4 || priority = 1 && title ~ "gamma"'), 'Alpha report,Gamma "quoted"')
  assert.equal(await titles('(priority = 4 || priority = 1) && title ~ "gamma"'), 'Gamma "quoted"')
  assert.equal(await titles('!(priority >= 3)'), 'Delta,Gamma "quoted"')
  assert.equal(await titles('!completed = true && priority < 4'), 'Beta')
})

test('relation paths and membership', async () => {
  assert.equal(await titles('tags ~ "bug"'), 'Alpha report,Beta')
  assert.equal(await titles('tags ~ "UX" && tags !~ "bug"'), 'Gamma "quoted"')
  assert.equal(await titles(`assignees ~ "${c.member.id}"`), 'Alpha report')
  assert.equal(await titles(`members !~ "${c.member.id}"`), 'Beta,Delta,Gamma "quoted"')
  assert.equal(await titles('list.category = "started"'), 'Beta')
  assert.equal(await titles('state = "completed"'), 'Delta,Gamma "quoted"', 'completing Delta moved it to Done')
  assert.equal(await titles('list.name = "To do"'), 'Alpha report')
  assert.equal(await titles('board.name = "Launch"'), 'Alpha report,Beta,Delta,Gamma "quoted"')
  assert.equal(await titles(`created_by.email = "${c.member.email}"`), 'Alpha report,Beta,Delta,Gamma "quoted"')
  assert.equal(await titles('assignees.name ~ "admin"'), 'Beta')
  assert.equal(await titles(`board.members ~ "${c.admin.id}"`), 'Alpha report,Beta,Delta,Gamma "quoted"')
})

test('filter combines with query parameters (AND)', async () => {
  assert.equal(await titles('priority >= 1', '&state=unstarted'), 'Alpha report')
  assert.equal(await titles('priority >= 1', '&completed=true'), 'Gamma "quoted"')
  assert.equal(await titles('tags ~ "bug"', `&assignee=${c.admin.id}`), 'Beta')
})

test('a filter never reaches a card on a board the token cannot see', async () => {
  for (const f of [
    `board = "${hidden}"`,
    'title ~ "hidden"',
    `board.members ~ "${c.outsider.id}"`,
    `assignees ~ "${c.member.id}" && priority = 4`,
    'board.name = "Hidden"',
    `board = "${hidden}" || title ~ "hidden"`,
  ]) {
    assert.ok(!(await titles(f)).includes('hidden'), f)
  }
  // the outsider does see it
  assert.equal(await titles('title ~ "hidden"', '', c.tokens.outsider.read), 'Alpha report hidden')
  const boards = await c.t.req('GET', `/v1/boards?filter=${encodeURIComponent(`members ~ "${c.outsider.id}"`)}`, { token: c.tokens.member.read })
  assert.equal(boards.body.totalItems, 0)
})

test('errors: position and what was expected', async () => {
  const err = async (f: string) => {
    const r = await c.t.req('GET', `/v1/cards?filter=${encodeURIComponent(f)}`, { token: c.tokens.member.read })
    assert.equal(r.status, 400, f)
    assert.equal(r.body.error.code, 'invalid_filter')
    return r.body.error.message as string
  }
  assert.match(await err('title ='), /^at 8: /)
  assert.match(await err('priority > "high"'), /^at 12: /)
  assert.match(await err('colour = "red"'), /^at 1: .*colour/)
  assert.match(await err("title = 'x'"), /^at 9: /)
  assert.match(await err('(title = "x"'), /^at \d+: /)
  assert.match(await err('title = "x'), /^at 9: /)
  assert.match(await err('()'), /^at \d+: /)
  assert.match(await err('title = "x" title'), /^at 13: /)
  assert.match(await err(`title ~ "${'x'.repeat(3500)}"`), /3,?500/)
  assert.match(await err(Array.from({ length: 201 }, () => 'priority = 1').join(' || ')), /200/)
  assert.match(await err(`${'('.repeat(33)}priority = 1${')'.repeat(33)}`), /32/)
  assert.match(await err('board.created_by.email.name.x = "a"'), /^at 1: /)
})

test('expand loads relations for the whole page at once: as many statements for 1 card as for 4 (no N+1)', async () => {
  const deps = c.t.deps
  const statements = async (perPage: number, path: string) => {
    let n = 0
    const db = deps.db
    // Every statement of the request, on the connection (as its result comes back) or in the read pool, is counted once.
    const counter = { transformQuery: (args: { node: any }) => args.node, transformResult: async (args: { result: any }) => (n++, args.result) }
    deps.db = { ...db, q: db.q.withPlugin(counter), read: (query) => (n++, db.read(query)) }
    try {
      const r = await c.t.req('GET', `${path}&per_page=${perPage}`, { token: c.tokens.member.read })
      assert.equal(r.status, 200)
      assert.equal(r.body.items.length, perPage)
    } finally {
      deps.db = db
    }
    return n
  }
  const cards = '/v1/cards?expand=board,list,tags,assignees,members,watchers,priority,created_by&sort=title'
  await statements(1, cards) // a token's first use in a minute also writes last_used_at: keep that out of the counts
  const one = await statements(1, cards),
    four = await statements(4, cards)
  assert.equal(one, four)
  // the page, the count, links, lists, users, boards, tags, checklist progress, planning counts, statuses, custom fields
  // and their values (read at once, even on a board with no fields), files, ...
  assert.ok(one <= 17, `${one} statements`)
})

test('text comparisons fold case beyond ASCII: ~ and tag names, either way round', async () => {
  const c = await seededApp()
  try {
    const token = c.tokens.owner.write
    const card = async (title: string, tags: string[] = []) => {
      const r = await c.t.req('POST', '/v1/cards', { token, body: { board: c.board.id, title, tags } })
      assert.equal(r.status, 201, r.text)
      return r.body.card as { id: string }
    }
    const titles = async (filter: string) =>
      ((await c.t.req('GET', `/v1/cards?board=${c.board.id}&per_page=100&filter=${encodeURIComponent(filter)}`, { token })).body.items as { title: string }[])
        .map((i) => i.title)
        .sort()
    await card('ÉCOLE de Paris')
    await card('petite école')
    await card('Ecole sans accent')
    assert.deepEqual(await titles('title ~ "école"'), ['petite école', 'ÉCOLE de Paris'])
    assert.deepEqual(await titles('title ~ "ÉCOLE"'), ['petite école', 'ÉCOLE de Paris'])
    assert.deepEqual(await titles('title !~ "École" && title ~ "cole"'), ['Ecole sans accent'])
    // Tag names: "Ärger" and "ärger" are one name, whichever comes first.
    const tag = async (name: string) => c.t.req('POST', '/v1/tags', { token, body: { board: c.board.id, name } })
    const made = await tag('Ärger')
    assert.equal(made.status, 201, made.text)
    assert.equal((await tag('ärger')).status, 409)
    assert.equal((await tag('ÄRGER')).status, 409)
    assert.equal((await tag('ßtraße')).status, 201)
    const lower = await tag('öl')
    assert.equal(lower.status, 201)
    assert.equal((await tag('ÖL')).status, 409, 'either way round')
    assert.equal((await c.t.req('PATCH', `/v1/tags/${lower.body.tag.id}`, { token, body: { name: 'ÄrGeR' } })).status, 409, 'a rename too')
    await card('mit Ärger', [made.body.tag.id])
    assert.deepEqual(await titles('tags ~ "ÄRGER"'), ['mit Ärger'], 'membership by a name in another case')
  } finally {
    await c.t.close()
  }
})
