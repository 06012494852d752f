// Saved filters through HTTP, on one fixture: create and its checks (the filter parsed with its position, sort and
// expand as GET /v1/cards checks them, who may share with the workspace), the visibility matrix (private, shared on a
// board, workspace-wide) for reads and lists, who may change and delete, GET /v1/cards?saved_filter= combined with the
// request's filter, sort and expand, the events and who receives them (a private one's: its creator's subscriptions
// only, and only its creator sees them), a board deleted for good and a member leaving a board, and the export.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbAll } from '../helpers/db.js'
import { assertErrorShape, assertSubset } from '../helpers/scenarios.js'

async function fill(s: Awaited<ReturnType<typeof seededApp>>) {
  const { t, tokens } = s
  const post = async (url: string, body: unknown, token = tokens.member.write) => {
    const r = await t.req('POST', url, { token, body })
    assert.equal(r.status, 201, `${url}: ${r.text}`)
    return r.body
  }
  // A second plain member of the board, and a member of another board only (the seed's outsider).
  const peer = await t.user('member', 'Peer')
  const peerTokens = { read: await t.token(peer.id, 'read'), write: await t.token(peer.id, 'write') }
  assert.equal((await t.req('POST', `/v1/boards/${s.board.id}/members`, { token: tokens.owner.write, body: { user: peer.id } })).status, 201)
  const other = (await post('/v1/boards', { name: 'Other', key_prefix: 'OTH' }, tokens.outsider.write)).board
  const bug = (await post('/v1/tags', { board: s.board.id, name: 'bug' })).tag
  await post('/v1/xattr', { board: s.board.id, name: 'Estimate', type: 'number' })
  const card = async (board: string, title: string, priority: number, extra: Record<string, unknown> = {}, token = tokens.member.write) =>
    (await post('/v1/cards', { board, title, priority, ...extra }, token)).card
  const cards = {
    login: await card(s.board.id, 'Fix login', 3, { tags: [bug.id], xattr: { estimate: 2 } }),
    docs: await card(s.board.id, 'Write docs', 1, { xattr: { estimate: 8 } }),
    crash: await card(s.board.id, 'Fix crash', 4, { tags: [bug.id], xattr: { estimate: 5 } }),
    theirs: await card(other.id, 'Fix their thing', 4, {}, tokens.outsider.write),
  }
  const save = async (body: Record<string, unknown>, token = tokens.member.write) => (await post('/v1/saved-filters', body, token)).saved_filter
  const filters = {
    // The member's own, on the board; shared on the board; their own with no board; the admin's for the whole workspace.
    mine: await save({ name: 'Urgent', board: s.board.id, filter: 'priority >= 3', sort: '-priority', expand: 'tags' }),
    boardShared: await save({ name: 'Bugs', board: s.board.id, filter: 'tags ~ "bug"', shared: true }),
    minePlain: await save({ name: 'Fixes', filter: 'title ~ "Fix"' }),
    workspace: await save({ name: 'Anything', filter: 'priority >= 1', sort: 'title', shared: true }, tokens.admin.write),
    theirs: await save({ name: 'Theirs', board: other.id, filter: '' }, tokens.outsider.write),
  }
  return { peer, peerTokens, other, bug, cards, filters }
}

const ready = seededApp({ allowPrivateTargets: 'true' }).then(async (s) => {
  try {
    return { ...s, ...(await fill(s)) }
  } catch (err) {
    await s.t.close()
    throw err
  }
})
after(async () => (await ready).t.close())

type C = Awaited<typeof ready>
type Row = {
  name: string
  method: string
  path: (c: C) => string
  token: (c: C) => string
  body?: (c: C) => unknown
  status: number
  /** A 4xx's details must name this field. */
  field?: string
  /** The error code, when it matters (400 invalid_filter against bad_request). */
  code?: string
  /** The events the request writes, in order ([] for none). */
  events?: string[]
  expect?: (c: C) => unknown
  after?: (c: C, body: any) => void | Promise<void>
}

const lastSeq = async (c: C) => Number((await dbAll<{ n: number }>(c.t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))[0].n)
const eventsSince = async (c: C, seq: number) =>
  dbAll<{ name: string; board_id: string | null; audience_id: string | null; data: string }>(
    c.t.deps.db,
    'SELECT name, board_id, audience_id, data FROM events WHERE seq > ? ORDER BY seq',
    seq,
  )

async function runRows(rows: Row[]) {
  const c = await ready
  for (const row of rows) {
    const seq = await lastSeq(c)
    const r = await c.t.req(row.method, row.path(c), { token: row.token(c), body: row.body?.(c) })
    assert.equal(r.status, row.status, `${row.name}: ${r.status} ${r.text}`)
    if (r.status >= 400) assertErrorShape(r.body)
    if (row.code) assert.equal(r.body.error.code, row.code, `${row.name}: ${r.text}`)
    if (row.field !== undefined)
      assert.ok(
        (r.body.error.details ?? []).some((d: { path: string }) => d.path === row.field),
        `${row.name}: the details name ${row.field}: ${r.text}`,
      )
    if (row.events)
      assert.deepEqual(
        (await eventsSince(c, seq)).map((e) => e.name),
        row.events,
        `${row.name}: events`,
      )
    if (row.expect) assertSubset(r.body, row.expect(c))
    await row.after?.(c, r.body)
  }
}

const member = (c: C) => c.tokens.member.write
const titles = (body: any) => body.items.map((i: { title: string }) => i.title)

test('saved filters: create, and what is checked when saved', async () => {
  const create = (name: string, body: (c: C) => Record<string, unknown>, status: number, rest: Partial<Row> = {}): Row => ({
    name,
    method: 'POST',
    path: () => '/v1/saved-filters',
    token: member,
    body: (c) => ({ name: 'x', ...body(c) }),
    status,
    ...rest,
  })
  await runRows([
    create(
      'private on a board, with filter, sort and expand',
      (c) => ({ name: 'Mine', board: c.board.id, filter: 'priority >= 2', sort: '-xattr.estimate,title', expand: 'tags,list' }),
      201,
      {
        events: ['saved_filter.created'],
        expect: (c) => ({
          saved_filter: {
            name: 'Mine',
            resource: 'cards',
            filter: 'priority >= 2',
            sort: '-xattr.estimate,title',
            expand: 'tags,list',
            board: c.board.id,
            shared: false,
            created_by: { id: c.member.id, name: 'member 3' },
          },
        }),
      },
    ),
    create('no filter: every card; "" sort and expand are none', () => ({ sort: '', expand: '' }), 201, {
      expect: () => ({ saved_filter: { filter: '', sort: null, expand: null, board: null, shared: false } }),
    }),
    create('a filter that does not parse: 400 invalid_filter with its position', () => ({ filter: 'priority >= ' }), 400, {
      code: 'invalid_filter',
      field: 'filter',
      events: [],
      after: (_c, body) => assert.match(body.error.message, /^at \d+: /),
    }),
    create('a filter naming an unknown field', () => ({ filter: 'colour = "red"' }), 400, { code: 'invalid_filter', field: 'filter' }),
    create('a filter past the length limit', () => ({ filter: `title ~ "${'x'.repeat(3600)}"` }), 400, { code: 'invalid_filter', field: 'filter' }),
    create('an unknown sort field', () => ({ sort: '-colour' }), 400, { code: 'bad_request', field: 'sort' }),
    create('a custom field sort not first', (c) => ({ board: c.board.id, sort: 'title,-xattr.estimate' }), 400, { field: 'sort' }),
    create('a custom field the board does not have', (c) => ({ board: c.board.id, sort: 'xattr.nope' }), 400, { field: 'sort' }),
    create('a custom field of a board not its own', (c) => ({ board: c.other.id, sort: 'xattr.estimate' }), 404),
    create('an unknown relation to expand', () => ({ expand: 'tags,colour' }), 400, { code: 'bad_request', field: 'expand' }),
    create('a name is required', () => ({ name: undefined }), 422, { field: 'name' }),
    create('a blank name', () => ({ name: '   ' }), 422, { field: 'name' }),
    create('only cards are filtered', () => ({ resource: 'notes' }), 422, { field: 'resource' }),
    create('an unknown field', () => ({ colour: 'red' }), 422, { field: 'colour' }),
    create('shared must be a boolean', () => ({ shared: 'yes' }), 422, { field: 'shared' }),
    create('a board the member does not see: 404', (c) => ({ board: c.other.id }), 404, { events: [] }),
    create('a member cannot share with the whole workspace', () => ({ shared: true }), 422, { field: 'shared', events: [] }),
    create('an owner can', () => ({ shared: true }), 201, {
      token: (c) => c.tokens.owner.write,
      expect: () => ({ saved_filter: { shared: true, board: null } }),
    }),
    create('a member shares on a board', (c) => ({ board: c.board.id, shared: true }), 201, {
      expect: (c) => ({ saved_filter: { shared: true, board: c.board.id } }),
    }),
    create('a read token cannot save one', () => ({}), 403, { token: (c) => c.tokens.member.read }),
  ])
})

test('saved filters: who sees which (private, shared on a board, workspace-wide)', async () => {
  const c = await ready
  const who = {
    member: c.tokens.member.read,
    peer: c.peerTokens.read,
    admin: c.tokens.admin.read,
    owner: c.tokens.owner.read,
    outsider: c.tokens.outsider.read,
  }
  // Filter → who sees it (everyone else gets a 404).
  const matrix: [keyof typeof c.filters, (keyof typeof who)[]][] = [
    ['mine', ['member']],
    ['minePlain', ['member']],
    ['boardShared', ['member', 'peer', 'admin', 'owner']],
    ['workspace', ['member', 'peer', 'admin', 'owner', 'outsider']],
    ['theirs', ['outsider']],
  ]
  for (const [f, seeing] of matrix)
    for (const [user, token] of Object.entries(who)) {
      const r = await c.t.req('GET', `/v1/saved-filters/${c.filters[f].id}`, { token })
      assert.equal(r.status, seeing.includes(user as keyof typeof who) ? 200 : 404, `${f} as ${user}: ${r.text}`)
      const cards = await c.t.req('GET', `/v1/cards?saved_filter=${c.filters[f].id}`, { token })
      assert.equal(cards.status, r.status, `cards of ${f} as ${user}: ${cards.text}`)
    }
  // The list: each sees their own and the shared ones; filter, sort and paging as elsewhere.
  const names = async (token: string, query = '') =>
    (await c.t.req('GET', `/v1/saved-filters?per_page=100${query}`, { token })).body.items.map((i: { name: string }) => i.name)
  const fixed = new Set(['Urgent', 'Bugs', 'Fixes', 'Anything', 'Theirs'])
  const ours = async (token: string, query = '') => (await names(token, query)).filter((n: string) => fixed.has(n))
  assert.deepEqual(await ours(who.member), ['Anything', 'Bugs', 'Fixes', 'Urgent'])
  assert.deepEqual(await ours(who.peer), ['Anything', 'Bugs'])
  assert.deepEqual(await ours(who.owner), ['Anything', 'Bugs'])
  assert.deepEqual(await ours(who.outsider), ['Anything', 'Theirs'])
  assert.deepEqual(await ours(who.member, `&board=${c.board.id}&sort=-name`), ['Urgent', 'Bugs'])
  assert.deepEqual(await ours(who.member, `&filter=${encodeURIComponent('shared = true && board = null')}`), ['Anything'])
  const page = await c.t.req('GET', `/v1/saved-filters?filter=${encodeURIComponent('name ~ "urg"')}&per_page=1`, { token: who.member })
  assertSubset(page.body, { page: 1, perPage: 1, totalItems: 1, totalPages: 1, items: [{ name: 'Urgent' }] })
  for (const bad of ['sort=colour', 'expand=board', 'filter=colour%3D1', 'per_page=501'])
    assert.equal((await c.t.req('GET', `/v1/saved-filters?${bad}`, { token: who.member })).status, 400, bad)
})

test('saved filters: its creator changes and deletes it; owners and admins a shared one; others get 403 or 404', async () => {
  const patch = (name: string, id: (c: C) => string, token: (c: C) => string, body: Record<string, unknown>, status: number, rest: Partial<Row> = {}): Row => ({
    name,
    method: 'PATCH',
    path: (c) => `/v1/saved-filters/${id(c)}`,
    token,
    body: () => body,
    status,
    ...rest,
  })
  const shared = (c: C) => c.filters.boardShared.id
  const mine = (c: C) => c.filters.mine.id
  await runRows([
    patch('a member of the board who did not make it: 403', shared, (c) => c.peerTokens.write, { name: 'x' }, 403, { events: [] }),
    patch('a member of another board: 404', shared, (c) => c.tokens.outsider.write, { name: 'x' }, 404),
    patch('an admin changes a shared one', shared, (c) => c.tokens.admin.write, { name: 'Bugs!' }, 200, {
      events: ['saved_filter.updated'],
      expect: (c) => ({ saved_filter: { name: 'Bugs!', created_by: { id: c.member.id } } }),
    }),
    patch('an admin does not see a private one: 404', mine, (c) => c.tokens.admin.write, { name: 'x' }, 404),
    patch('a read token: 403', mine, (c) => c.tokens.member.read, { name: 'x' }, 403),
    patch('a new filter is parsed', mine, member, { filter: 'priority >' }, 400, { code: 'invalid_filter', field: 'filter', events: [] }),
    patch('a new sort is checked', mine, member, { sort: 'nope' }, 400, { field: 'sort' }),
    patch('a member cannot make it workspace-wide', mine, member, { board: null, shared: true }, 422, { field: 'shared' }),
    patch('to another board the member does not see: 404', mine, member, { board: 'nope' }, 404),
    patch('null clears sort and expand', mine, member, { sort: null, expand: null, name: 'Urgent ones' }, 200, {
      expect: () => ({ saved_filter: { sort: null, expand: null, name: 'Urgent ones' } }),
    }),
    patch('and back', mine, member, { sort: '-priority', expand: 'tags', name: 'Urgent' }, 200, {
      expect: () => ({ saved_filter: { sort: '-priority', expand: 'tags' } }),
    }),
    {
      name: 'the peer cannot delete a shared one',
      method: 'DELETE',
      path: (c) => `/v1/saved-filters/${shared(c)}`,
      token: (c) => c.peerTokens.write,
      status: 403,
    },
    {
      name: 'nor the outsider see it',
      method: 'DELETE',
      path: (c) => `/v1/saved-filters/${shared(c)}`,
      token: (c) => c.tokens.outsider.write,
      status: 404,
    },
  ])
  // A custom field sort is checked again when the board changes.
  const c = await ready
  const keyed = (await c.t.req('POST', '/v1/saved-filters', { token: member(c), body: { name: 'By estimate', board: c.board.id, sort: '-xattr.estimate' } }))
    .body.saved_filter
  const toOther = await c.t.req('PATCH', `/v1/saved-filters/${keyed.id}`, { token: c.tokens.admin.write, body: { board: c.other.id } })
  assert.equal(toOther.status, 404, 'the admin does not see a private one')
  const shareIt = await c.t.req('PATCH', `/v1/saved-filters/${keyed.id}`, { token: member(c), body: { shared: true } })
  assert.equal(shareIt.status, 200, shareIt.text)
  const moved = await c.t.req('PATCH', `/v1/saved-filters/${keyed.id}`, { token: c.tokens.admin.write, body: { board: c.other.id } })
  assert.equal(moved.status, 400, moved.text)
  assert.equal(moved.body.error.details[0].path, 'sort')
  // The owner deletes a shared one; its creator a private one.
  assert.equal((await c.t.req('DELETE', `/v1/saved-filters/${keyed.id}`, { token: c.tokens.owner.write })).status, 204)
  assert.equal((await c.t.req('GET', `/v1/saved-filters/${keyed.id}`, { token: member(c) })).status, 404)
  const scratch = (await c.t.req('POST', '/v1/saved-filters', { token: member(c), body: { name: 'Scratch' } })).body.saved_filter
  assert.equal((await c.t.req('DELETE', `/v1/saved-filters/${scratch.id}`, { token: c.tokens.owner.write })).status, 404)
  assert.equal((await c.t.req('DELETE', `/v1/saved-filters/${scratch.id}`, { token: member(c) })).status, 204)
})

test('saved filters: GET /v1/cards?saved_filter= applies its filter AND the request’s; the request’s sort and expand win', async () => {
  const c = await ready
  const list = async (query: string, token = c.tokens.member.read) => {
    const r = await c.t.req('GET', `/v1/cards?${query}`, { token })
    assert.equal(r.status, 200, `${query}: ${r.text}`)
    return r.body
  }
  const mine = `saved_filter=${c.filters.mine.id}`
  // Its filter (priority >= 3) and its sort (-priority) and expand (tags).
  const saved = await list(mine)
  assert.deepEqual(titles(saved), ['Fix crash', 'Fix login'])
  assert.deepEqual(
    saved.items[0].expand.tags.map((t: { name: string }) => t.name),
    ['bug'],
  )
  // AND the request's filter and parameters.
  assert.deepEqual(titles(await list(`${mine}&filter=${encodeURIComponent('title ~ "login"')}`)), ['Fix login'])
  assert.deepEqual(titles(await list(`${mine}&filter=${encodeURIComponent('priority < 3')}`)), [])
  assert.deepEqual(titles(await list(`${mine}&assignee=none&completed=false`)), ['Fix crash', 'Fix login'])
  // The request's sort and expand win.
  const resorted = await list(`${mine}&sort=-title&expand=list`)
  assert.deepEqual(titles(resorted), ['Fix login', 'Fix crash'])
  assert.equal(resorted.items[0].expand.tags, undefined)
  assert.ok(resorted.items[0].expand.list)
  assert.deepEqual(titles(await list(`${mine}&sort=xattr.estimate`)), ['Fix login', 'Fix crash'])
  // Paging over the combination, with its total.
  assertSubset(await list(`${mine}&per_page=1&page=2`), { totalItems: 2, totalPages: 2, items: [{ title: 'Fix login' }] })
  // A saved filter of a board lists that board's cards only: another board named beside it gives none.
  assert.deepEqual(titles(await list(`${mine}&board=${c.other.id}`, c.tokens.member.read)), [])
  // A workspace-wide one, as each caller sees the cards: the outsider's own board only.
  const anything = `saved_filter=${c.filters.workspace.id}`
  assert.deepEqual(titles(await list(anything)), ['Fix crash', 'Fix login', 'Write docs'])
  assert.deepEqual(titles(await list(anything, c.tokens.outsider.read)), ['Fix their thing'])
  // One with no board, as its creator sees the cards.
  assert.deepEqual(titles(await list(`saved_filter=${c.filters.minePlain.id}&sort=title`)), ['Fix crash', 'Fix login'])
  // Unknown, or not seen: 404; a request filter that does not parse is still the request's 400.
  for (const [query, token, status] of [
    ['saved_filter=nope', c.tokens.member.read, 404],
    [mine, c.peerTokens.read, 404],
    [mine, c.tokens.admin.read, 404],
    [`${mine}&filter=${encodeURIComponent('priority >')}`, c.tokens.member.read, 400],
    [`${mine}&sort=colour`, c.tokens.member.read, 400],
    ['saved_filter=', c.tokens.member.read, 422],
  ] as const) {
    const r = await c.t.req('GET', `/v1/cards?${query}`, { token })
    assert.ok(r.status === status || (status === 422 && r.status === 400), `${query}: ${r.status} ${r.text}`)
    assertErrorShape(r.body)
  }
})

test('saved filters: events go only to those who see the filter', async () => {
  const c = await ready
  const hook = async (token: string, boards: string[]) => {
    const r = await c.t.req('POST', '/v1/webhooks', { token, body: { name: 'filters', url: 'http://127.0.0.1:9/hook', events: ['saved_filter.*'], boards } })
    assert.equal(r.status, 201, r.text)
    return r.body.webhook.id as string
  }
  const subs = {
    member: await hook(c.tokens.member.write, [c.board.id]),
    peer: await hook(c.peerTokens.write, [c.board.id]),
    admin: await hook(c.tokens.admin.write, []),
    outsider: await hook(c.tokens.outsider.write, [c.other.id]),
  }
  const receivers = async (seq: number) => {
    const rows = await dbAll<{ webhook_id: string; event: string }>(
      c.t.deps.db,
      'SELECT o.webhook_id, o.event FROM outbox o JOIN events e ON e.id = o.event_id WHERE e.seq > ? ORDER BY e.seq, o.webhook_id',
      seq,
    )
    return [...new Set(rows.map((r) => Object.entries(subs).find(([, id]) => id === r.webhook_id)?.[0]))].sort()
  }
  const save = async (body: Record<string, unknown>, token = c.tokens.member.write) => {
    const seq = await lastSeq(c)
    const r = await c.t.req('POST', '/v1/saved-filters', { token, body: { name: 'Announced', ...body } })
    assert.equal(r.status, 201, r.text)
    return { id: r.body.saved_filter.id as string, seq }
  }
  // An automation of the board listening: a private filter's events start none of its runs.
  const automation = await c.t.req('POST', '/v1/automations', {
    token: c.tokens.admin.write,
    body: { name: 'On filters', board: c.board.id, trigger: { type: 'event', events: ['saved_filter.*'] }, steps: [{ type: 'create_card', title: 'Seen' }] },
  })
  assert.equal(automation.status, 201, automation.text)
  const runs = async () => (await dbAll(c.t.deps.db, 'SELECT id FROM automation_runs WHERE automation_id = ?', automation.body.automation.id)).length
  // Private on the board: its creator's subscriptions only; the event row is theirs alone.
  const own = await save({ board: c.board.id })
  assert.deepEqual(await receivers(own.seq), ['member'])
  assert.equal(await runs(), 0, 'no run for a private filter')
  const [row] = await eventsSince(c, own.seq)
  assert.deepEqual([row.name, row.board_id, row.audience_id], ['saved_filter.created', c.board.id, c.member.id])
  assertSubset(JSON.parse(row.data), { id: own.id, board: { id: c.board.id, name: 'Launch' }, shared: false, created_by: { id: c.member.id } })
  // Shared on the board: the subscriptions of those who see the board.
  const seq = await lastSeq(c)
  assert.equal((await c.t.req('PATCH', `/v1/saved-filters/${own.id}`, { token: c.tokens.member.write, body: { shared: true } })).status, 200)
  assert.deepEqual(await receivers(seq), ['admin', 'member', 'peer'])
  assert.equal(await runs(), 1, 'a shared one starts the board’s automations as any event of the board does')
  assert.equal((await c.t.req('DELETE', `/v1/automations/${automation.body.automation.id}`, { token: c.tokens.admin.write })).status, 204)
  // Workspace-wide (an admin's): board-less events reach the workspace-wide subscriptions of owners and admins.
  const wide = await save({ shared: true }, c.tokens.admin.write)
  assert.deepEqual(await receivers(wide.seq), ['admin'])
  // A private one with no board: nobody else's.
  const alone = await save({}, c.tokens.admin.write)
  assert.deepEqual(await receivers(alone.seq), ['admin'])
  assert.equal((await eventsSince(c, alone.seq))[0].audience_id, c.admin.id)
  const lone = await save({})
  assert.deepEqual(await receivers(lone.seq), [], 'a member subscribes to boards, so no subscription of theirs takes a board-less event')
  // Deleted: to those who saw it.
  const before = await lastSeq(c)
  assert.equal((await c.t.req('DELETE', `/v1/saved-filters/${alone.id}`, { token: c.tokens.admin.write })).status, 204)
  assert.deepEqual(
    (await eventsSince(c, before)).map((e) => [e.name, e.audience_id]),
    [['saved_filter.deleted', c.admin.id]],
  )
  // Samples show a private one's events to its creator only.
  const samples = async (token: string) =>
    (await c.t.req('GET', '/v1/webhooks/samples?event=saved_filter.created', { token })).body.items.map((i: { data: { id: string } }) => i.data.id)
  assert.ok((await samples(c.tokens.member.read)).includes(own.id))
  assert.ok(!(await samples(c.peerTokens.read)).includes(own.id))
  assert.ok(!(await samples(c.tokens.owner.read)).includes(lone.id))
  assert.ok((await samples(c.tokens.owner.read)).includes(wide.id))
  for (const id of Object.values(subs)) assert.equal((await c.t.req('DELETE', `/v1/webhooks/${id}`, { token: c.tokens.owner.write })).status, 204)
})

test('saved filters: a member who leaves a board no longer sees its saved filters; a board deleted for good takes them; the export carries them', async () => {
  const c = await ready
  const peerOwn = (await c.t.req('POST', '/v1/saved-filters', { token: c.peerTokens.write, body: { name: 'Peer’s', board: c.board.id } })).body.saved_filter
  assert.equal((await c.t.req('DELETE', `/v1/boards/${c.board.id}/members/${c.peer.id}`, { token: c.tokens.owner.write })).status, 204)
  for (const id of [peerOwn.id, c.filters.boardShared.id])
    assert.equal((await c.t.req('GET', `/v1/saved-filters/${id}`, { token: c.peerTokens.read })).status, 404)
  assert.equal((await c.t.req('GET', `/v1/saved-filters/${c.filters.boardShared.id}`, { token: c.tokens.member.read })).status, 200, 'the others keep it')
  assert.equal((await c.t.req('POST', `/v1/boards/${c.board.id}/members`, { token: c.tokens.owner.write, body: { user: c.peer.id } })).status, 201)
  assert.equal((await c.t.req('GET', `/v1/saved-filters/${peerOwn.id}`, { token: c.peerTokens.read })).status, 200, 'a member again sees it again')

  const exported = await c.t.req('POST', '/v1/actions/export-workspace', { token: c.tokens.owner.full })
  assert.equal(exported.status, 200, exported.text)
  const rows = exported.body.saved_filters as { id: string; filter: string; created_by: string }[]
  assert.ok(rows.some((r) => r.id === c.filters.mine.id && r.filter === 'priority >= 3' && r.created_by === c.member.id))

  const doomed = (await c.t.req('POST', '/v1/boards', { token: c.tokens.member.write, body: { name: 'Doomed', key_prefix: 'DOOM' } })).body.board
  const onIt = (await c.t.req('POST', '/v1/saved-filters', { token: c.tokens.member.write, body: { name: 'On it', board: doomed.id, shared: true } })).body
    .saved_filter
  assert.equal((await c.t.req('DELETE', `/v1/boards/${doomed.id}`, { token: c.tokens.member.write })).status, 204)
  assert.equal((await c.t.req('GET', `/v1/saved-filters/${onIt.id}`, { token: c.tokens.member.read })).status, 404, 'in the trash: out of sight')
  assert.equal((await c.t.req('POST', `/v1/boards/${doomed.id}/restore`, { token: c.tokens.member.write })).status, 200)
  assert.equal((await c.t.req('GET', `/v1/saved-filters/${onIt.id}`, { token: c.tokens.member.read })).status, 200, 'restored: back')
  assert.equal((await c.t.req('DELETE', `/v1/boards/${doomed.id}?permanent=true`, { token: c.tokens.owner.write })).status, 204)
  assert.deepEqual(await dbAll(c.t.deps.db, 'SELECT id FROM saved_filters WHERE id = ?', onIt.id), [])
})
