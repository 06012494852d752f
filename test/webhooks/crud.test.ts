// /v1/webhooks CRUD and validation through HTTP: table-driven scenarios on a fresh database each.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { seededApp } from '../helpers/app.js'
import { dbAll, dbGet } from '../helpers/db.js'
import { runScenarios, type Scenario } from '../helpers/scenarios.js'

// A public IP literal: savable with private targets refused, and no DNS (tests never need the internet).
const URL_OK = 'https://93.184.216.34/hooks/taskd'
type C = Awaited<ReturnType<typeof seededApp>>
const setup = () => seededApp()
const owner = (c: C) => c.tokens.owner.write
const member = (c: C) => c.tokens.member.write
// Created inactive: they point at a public address, and no subscription to one may be active (nothing here delivers).
const body = (extra: Record<string, unknown>) => ({ name: 'n8n: sync', url: URL_OK, events: ['card.created'], boards: [], active: false, ...extra })

/** Checks the 422 carries a readable reason at this path. */
function detail(path: string, pattern: RegExp) {
  return (_c: C, reply: { body: any }) => {
    const d = reply.body.error.details.find((x: any) => x.path === path)
    assert.ok(d, `a detail for ${path}: ${JSON.stringify(reply.body.error.details)}`)
    assert.match(d.message, pattern)
  }
}

const create: Scenario<C>[] = [
  {
    name: 'owner creates a whole-workspace subscription',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({}),
    status: 201,
    expect: (c: C) => ({
      webhook: {
        name: 'n8n: sync',
        url: URL_OK,
        method: 'POST',
        events: ['card.created'],
        boards: [],
        headers: {},
        active: false,
        has_secret: false,
        auth: { type: 'none' },
        created_by: { id: c.owner.id },
        last_delivery: null,
      },
    }),
    after: (_c, r) => {
      assert.equal(r.body.secret, undefined)
      assert.ok(r.body.webhook.created && r.body.webhook.updated)
    },
  },
  {
    name: 'generate_secret returns the secret once, top-level',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ generate_secret: true }),
    status: 201,
    after: async (c, r) => {
      assert.match(r.body.secret, /^whsec_[A-Za-z0-9_-]{40,}$/)
      assert.equal(r.body.webhook.has_secret, true)
      const again = await c.t.req('GET', `/v1/webhooks/${r.body.webhook.id}`, { token: owner(c) })
      assert.ok(!again.text.includes(r.body.secret))
      const stored = (await dbGet<{ secret_enc: string }>(c.t.deps.db, 'SELECT secret_enc FROM webhooks'))!
      assert.ok(!stored.secret_enc.includes(r.body.secret), 'encrypted at rest')
    },
  },
  {
    name: 'credentials are write-only and encrypted',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({
      secret: 'plain-secret-1',
      auth: { type: 'header', header_name: 'X-Api-Key', header_value: 'value-abc' },
      headers: { 'X-Team': 'ops' },
      method: 'PATCH',
    }),
    status: 201,
    expect: { webhook: { has_secret: true, auth: { type: 'header', header_name: 'X-Api-Key' }, headers: { 'X-Team': 'ops' }, method: 'PATCH' } },
    after: async (c, r) => {
      for (const s of ['plain-secret-1', 'value-abc']) assert.ok(!JSON.stringify(r.body).includes(s))
      const dump = JSON.stringify(await dbAll(c.t.deps.db, 'SELECT * FROM webhooks'))
      for (const s of ['plain-secret-1', 'value-abc']) assert.ok(!dump.includes(s), `${s} not stored in clear`)
    },
  },
  {
    name: 'events by family, * and none are accepted',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ events: ['card.*', '*', 'tag.deleted'] }),
    status: 201,
  },
  {
    name: 'events [] (none) is accepted',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ events: [] }),
    status: 201,
    expect: { webhook: { events: [] } },
  },
  {
    name: 'unknown event → 422 naming it',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ events: ['card.created', 'card.exploded'] }),
    status: 422,
    field: 'events.1',
    after: detail('events.1', /Unknown event "card.exploded"/),
  },
  {
    name: 'the audit log’s event alone → 201 (it is emitted)',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ events: ['audit.*', 'audit.entry'] }),
    status: 201,
  },
  {
    name: 'ftp URL → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ url: 'ftp://example.com/x' }),
    status: 422,
    field: 'url',
    after: detail('url', /must start with http:\/\/ or https:\/\//),
  },
  {
    name: 'URL with a fragment → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ url: 'https://93.184.216.34/x#frag' }),
    status: 422,
    field: 'url',
    after: detail('url', /fragment/),
  },
  {
    name: 'loopback URL → 422 unless private targets are allowed',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ url: 'http://127.0.0.1:9/x' }),
    status: 422,
    field: 'url',
    after: detail('url', /127\.0\.0\.1.*TASKD_ALLOW_PRIVATE_TARGETS/),
  },
  {
    name: 'private address → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ url: 'http://10.1.2.3/x' }),
    status: 422,
    field: 'url',
    after: detail('url', /10\.1\.2\.3/),
  },
  {
    name: 'localhost → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ url: 'http://localhost:8080/x' }),
    status: 422,
    field: 'url',
    after: detail('url', /internal host name/),
  },
  {
    name: 'method GET → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ method: 'GET' }),
    status: 422,
    field: 'method',
    after: detail('method', /.+/),
  },
  {
    name: 'member with no boards → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: member,
    body: body({}),
    status: 422,
    field: 'boards',
    after: detail('boards', /at least one board they belong to/),
  },
  {
    name: 'member naming their board → 201',
    method: 'POST',
    path: '/v1/webhooks',
    token: member,
    body: (c: C) => body({ boards: [c.board.id] }),
    status: 201,
    expect: (c: C) => ({ webhook: { boards: [c.board.id], created_by: { id: c.member.id } } }),
  },
  {
    name: 'outsider naming a board they do not belong to → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => body({ boards: [c.board.id] }),
    status: 422,
    field: 'boards.0',
    after: detail('boards.0', /not a member/),
  },
  {
    name: 'admin may name any existing board',
    method: 'POST',
    path: '/v1/webhooks',
    token: (c) => c.tokens.admin.write,
    body: (c: C) => body({ boards: [c.board.id] }),
    status: 201,
  },
  {
    name: 'admin naming an unknown board → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: (c) => c.tokens.admin.write,
    body: body({ boards: ['nope'] }),
    status: 422,
    field: 'boards.0',
    after: detail('boards.0', /No such board/),
  },
  {
    name: 'bearer without token → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ auth: { type: 'bearer' } }),
    status: 422,
    field: 'auth.token',
    after: detail('auth.token', /needs token/),
  },
  {
    name: 'header auth on a reserved header → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ auth: { type: 'header', header_name: 'X-Webhook-Signature', header_value: 'x' } }),
    status: 422,
    field: 'auth.header_name',
    after: detail('auth.header_name', /cannot be configured/),
  },
  {
    name: 'static Host header → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ headers: { Host: 'evil' } }),
    status: 422,
    field: 'headers.Host',
    after: detail('headers.Host', /cannot be configured/),
  },
  {
    name: 'static hop-by-hop header → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ headers: { Connection: 'close', 'Content-Length': '3' } }),
    status: 422,
    field: 'headers.Content-Length',
    after: detail('headers.Content-Length', /cannot be configured/),
  },
  {
    name: 'header value with a line break → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ headers: { 'X-Ok': 'a\r\nX-Injected: 1' } }),
    status: 422,
    field: 'headers.X-Ok',
    after: detail('headers.X-Ok', /line breaks/),
  },
  {
    name: 'secret and generate_secret together → 422',
    method: 'POST',
    path: '/v1/webhooks',
    token: owner,
    body: body({ secret: 'x', generate_secret: true }),
    status: 422,
    field: 'secret',
    after: detail('secret', /either/),
  },
  { name: 'unknown field → 422', method: 'POST', path: '/v1/webhooks', token: owner, body: body({ colour: 'red' }), status: 422, field: 'colour' },
  { name: 'read-only token → 403', method: 'POST', path: '/v1/webhooks', token: (c) => c.tokens.owner.read, body: body({}), status: 403 },
  { name: 'no token → 401', method: 'POST', path: '/v1/webhooks', body: body({}), status: 401 },
]
runScenarios('POST /v1/webhooks', setup, create)

/** A fixture with one subscription of the member and one of the owner. */
async function withSubs() {
  const c = await seededApp()
  const mk = async (token: string, extra: Record<string, unknown>) =>
    (await c.t.req('POST', '/v1/webhooks', { token, body: body({ boards: [c.board.id], ...extra }) })).body.webhook
  const memberSub = await mk(c.tokens.member.write, { name: 'member hook', secret: 'm-secret', auth: { type: 'bearer', token: 'm-token' } })
  const ownerSub = await mk(c.tokens.owner.write, { name: 'owner hook' })
  return { ...c, memberSub, ownerSub }
}
type S = Awaited<ReturnType<typeof withSubs>>
const storedAuth = async (c: S, id: string) => {
  const { openAuth } = await import('../../src/delivery/credentials.js')
  const row = (await dbGet<any>(c.t.deps.db, 'SELECT * FROM webhooks WHERE id = ?', id))!
  return { type: row.auth_type, creds: openAuth(c.t.deps.secrets, row), hasSecret: row.secret_enc !== null }
}

runScenarios<S>('webhooks visibility and edits', withSubs, [
  {
    name: 'member lists only their own',
    method: 'GET',
    path: '/v1/webhooks',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: S) => ({ page: 1, perPage: 30, totalItems: 1, totalPages: 1, items: [{ id: c.memberSub.id }] }),
  },
  {
    name: 'owner lists every subscription',
    method: 'GET',
    path: '/v1/webhooks?sort=name',
    token: (c) => c.tokens.owner.read,
    status: 200,
    expect: (c: S) => ({ totalItems: 2, items: [{ id: c.memberSub.id }, { id: c.ownerSub.id }] }),
  },
  {
    name: 'filter by name',
    method: 'GET',
    path: '/v1/webhooks?filter=name~"owner"',
    token: (c) => c.tokens.owner.read,
    status: 200,
    expect: (c: S) => ({ totalItems: 1, items: [{ id: c.ownerSub.id }] }),
  },
  {
    name: 'filter by board membership',
    method: 'GET',
    path: (c) => `/v1/webhooks?filter=${encodeURIComponent(`boards~"${c.board.id}" && active=false`)}`,
    token: (c) => c.tokens.owner.read,
    status: 200,
    expect: { totalItems: 2 },
  },
  {
    name: 'unparseable filter → 400',
    method: 'GET',
    path: '/v1/webhooks?filter=name~',
    token: (c) => c.tokens.owner.read,
    status: 400,
    expect: { error: { code: 'invalid_filter' } },
  },
  {
    name: 'expand=boards',
    method: 'GET',
    path: '/v1/webhooks?expand=boards',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: S) => ({ items: [{ id: c.memberSub.id, boards: [c.board.id], expand: { boards: [{ id: c.board.id, name: 'Launch' }] } }] }),
  },
  { name: 'unknown sort → 400', method: 'GET', path: '/v1/webhooks?sort=url', token: (c) => c.tokens.owner.read, status: 400 },
  {
    name: "member cannot read the owner's subscription",
    method: 'GET',
    path: (c) => `/v1/webhooks/${c.ownerSub.id}`,
    token: (c) => c.tokens.member.read,
    status: 404,
  },
  {
    name: 'member cannot edit it',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.ownerSub.id}`,
    token: (c) => c.tokens.member.write,
    body: { name: 'x' },
    status: 404,
  },
  { name: 'member cannot delete it', method: 'DELETE', path: (c) => `/v1/webhooks/${c.ownerSub.id}`, token: (c) => c.tokens.member.write, status: 404 },
  {
    name: "admin reads a member's subscription",
    method: 'GET',
    path: (c) => `/v1/webhooks/${c.memberSub.id}`,
    token: (c) => c.tokens.admin.read,
    status: 200,
    expect: (c: S) => ({ webhook: { created_by: { id: c.member.id, name: c.memberSub.created_by.name }, has_secret: true, auth: { type: 'bearer' } } }),
  },
  {
    name: 'blank secret and blank token keep the stored values',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.memberSub.id}`,
    token: (c) => c.tokens.member.write,
    body: { secret: '', auth: { type: 'bearer', token: '' }, name: 'renamed' },
    status: 200,
    expect: { webhook: { name: 'renamed', has_secret: true, auth: { type: 'bearer' } } },
    after: async (c) => assert.deepEqual(await storedAuth(c, c.memberSub.id), { type: 'bearer', creds: { token: 'm-token' }, hasSecret: true }),
  },
  {
    name: 'null clears the secret; auth null removes authentication',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.memberSub.id}`,
    token: (c) => c.tokens.member.write,
    body: { secret: null, auth: null },
    status: 200,
    expect: { webhook: { has_secret: false, auth: { type: 'none' } } },
    after: async (c) => assert.deepEqual(await storedAuth(c, c.memberSub.id), { type: 'none', creds: {}, hasSecret: false }),
  },
  {
    name: 'a new token replaces the old one',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.memberSub.id}`,
    token: (c) => c.tokens.member.write,
    body: { auth: { token: 'new-token' } },
    status: 200,
    after: async (c) => assert.deepEqual((await storedAuth(c, c.memberSub.id)).creds, { token: 'new-token' }),
  },
  {
    name: 'changing the auth type needs the new credentials',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.memberSub.id}`,
    token: (c) => c.tokens.member.write,
    body: { auth: { type: 'basic', password: '' } },
    status: 422,
    field: 'auth.username',
    after: detail('auth.username', /needs username/),
  },
  {
    name: 'switching to basic keeps nothing of the bearer token',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.memberSub.id}`,
    token: (c) => c.tokens.member.write,
    body: { auth: { type: 'basic', username: 'u', password: 'p' } },
    status: 200,
    expect: { webhook: { auth: { type: 'basic' } } },
    after: async (c) => assert.deepEqual((await storedAuth(c, c.memberSub.id)).creds, { username: 'u', password: 'p' }),
  },
  {
    name: 'generate_secret on edit returns the new secret once',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.memberSub.id}`,
    token: (c) => c.tokens.member.write,
    body: { generate_secret: true },
    status: 200,
    after: (_c, r) => assert.match(r.body.secret, /^whsec_/),
  },
  {
    name: 'a member cannot widen their subscription to the whole workspace',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.memberSub.id}`,
    token: (c) => c.tokens.member.write,
    body: { boards: [] },
    status: 422,
    field: 'boards',
    after: detail('boards', /at least one board/),
  },
  {
    name: 'PATCH re-checks a new URL',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.ownerSub.id}`,
    token: (c) => c.tokens.owner.write,
    body: { url: 'http://192.168.1.1/x' },
    status: 422,
    field: 'url',
    after: detail('url', /192\.168\.1\.1/),
  },
  {
    name: 'pause and change method and events',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.ownerSub.id}`,
    token: (c) => c.tokens.owner.write,
    body: { active: false, method: 'PUT', events: ['list.*'], headers: { 'X-A': 'b' } },
    status: 200,
    expect: { webhook: { active: false, method: 'PUT', events: ['list.*'], headers: { 'X-A': 'b' } } },
  },
  {
    name: 'creator deletes their own',
    method: 'DELETE',
    path: (c) => `/v1/webhooks/${c.memberSub.id}`,
    token: (c) => c.tokens.member.write,
    status: 204,
    after: async (c) => assert.equal((await c.t.req('GET', `/v1/webhooks/${c.memberSub.id}`, { token: c.tokens.owner.read })).status, 404),
  },
  { name: "admin deletes anyone's", method: 'DELETE', path: (c) => `/v1/webhooks/${c.memberSub.id}`, token: (c) => c.tokens.admin.write, status: 204 },
])

test('allowPrivateTargets lets loopback URLs be saved', async () => {
  const c = await seededApp({ allowPrivateTargets: 'true' })
  try {
    const r = await c.t.req('POST', '/v1/webhooks', { token: c.tokens.owner.write, body: body({ url: 'http://127.0.0.1:9/x' }) })
    assert.equal(r.status, 201, r.text)
    const bad = await c.t.req('POST', '/v1/webhooks', { token: c.tokens.owner.write, body: body({ url: 'http://127.0.0.1:9/x#y' }) })
    assert.equal(bad.status, 422, 'syntax rules still apply')
  } finally {
    await c.t.close()
  }
})

// Every name a static header or header authentication may not set, and every value HTTP cannot carry.
const RESERVED_NAMES = [
  'User-Agent',
  'X-Webhook-Event',
  'X-Webhook-Delivery',
  'X-Webhook-Signature',
  'X-Webhook-Anything',
  'X-Service-Signature',
  'Host',
  'Content-Length',
  'Transfer-Encoding',
  'Connection',
]
const UNSENDABLE = [
  ['a non-Latin-1 character', 'ok ✓'],
  ['a euro sign', '10 €'],
  ['a control character', 'a\u0001b'],
  ['a line break', 'a\nb'],
]

test('header values that cannot be sent, and reserved header names, are refused at save (422 naming the field)', async () => {
  const c = await setup()
  try {
    const post = (extra: Record<string, unknown>) => c.t.req('POST', '/v1/webhooks', { token: owner(c), body: body({ active: false, ...extra }) })
    const refused = async (extra: Record<string, unknown>, field: string, what: string) => {
      const r = await post(extra)
      assert.equal(r.status, 422, `${what}: ${r.text}`)
      assert.ok(
        r.body.error.details.some((d: { path: string }) => d.path === field),
        `${what}: names ${field}`,
      )
    }
    for (const name of RESERVED_NAMES) {
      await refused({ headers: { [name]: 'x' } }, `headers.${name}`, `static ${name}`)
      await refused({ auth: { type: 'header', header_name: name, header_value: 'x' } }, 'auth.header_name', `auth header ${name}`)
    }
    for (const [what, value] of UNSENDABLE) {
      await refused({ headers: { 'X-Team': value } }, 'headers.X-Team', `static header with ${what}`)
      await refused({ auth: { type: 'bearer', token: value } }, 'auth.token', `bearer token with ${what}`)
      await refused({ auth: { type: 'header', header_name: 'X-Api-Key', header_value: value } }, 'auth.header_value', `header value with ${what}`)
    }
    // Latin-1 is sendable; a basic username and password go base64-encoded, so any text is fine there.
    const ok = await post({ headers: { 'X-Team': 'café' }, auth: { type: 'basic', username: 'jürgen', password: 'pass ✓ €' } })
    assert.equal(ok.status, 201, ok.text)
    assert.equal((await c.t.req('DELETE', `/v1/webhooks/${ok.body.webhook.id}`, { token: owner(c) })).status, 204)
    const patched = await post({})
    assert.equal(patched.status, 201)
    const edit = await c.t.req('PATCH', `/v1/webhooks/${patched.body.webhook.id}`, { token: owner(c), body: { headers: { 'X-Webhook-Extra': '1' } } })
    assert.equal(edit.status, 422, 'the same rules on edit')
    await c.t.req('DELETE', `/v1/webhooks/${patched.body.webhook.id}`, { token: owner(c) })
  } finally {
    await c.t.close()
  }
})

test('a subscription pointed at another URL (also another path on the same host) must be given its secret, credentials and credential headers again', async () => {
  const c = await setup()
  // They point at a public address (inactive all along, and nothing here delivers): deleted whatever happens.
  const made: string[] = []
  try {
    const created = await c.t.req('POST', '/v1/webhooks', {
      token: owner(c),
      body: body({ active: false, secret: 's3cret-value', auth: { type: 'bearer', token: 'tok-value' }, headers: { Cookie: 'a=b', 'X-Team': 'ops' } }),
    })
    assert.equal(created.status, 201, created.text)
    const id = created.body.webhook.id
    made.push(id)
    const patch = (b: Record<string, unknown>) => c.t.req('PATCH', `/v1/webhooks/${id}`, { token: c.tokens.admin.write, body: b })
    const elsewhere = 'https://93.184.216.34:8443/collect'
    const moved = await patch({ url: elsewhere })
    assert.equal(moved.status, 422, moved.text)
    assert.deepEqual(moved.body.error.details.map((d: { path: string }) => d.path).sort(), ['auth.token', 'headers', 'secret'])
    const blanks = await patch({ url: elsewhere, secret: '', auth: { token: '' }, headers: { Cookie: 'a=b' } })
    assert.deepEqual(
      blanks.body.error.details.map((d: { path: string }) => d.path).sort(),
      ['auth.token', 'secret'],
      'blank (keep) does not count as entering again',
    )
    const samePath = await patch({ url: `${URL_OK}/other-path` })
    assert.deepEqual(
      samePath.body.error.details.map((d: { path: string }) => d.path).sort(),
      ['auth.token', 'headers', 'secret'],
      'another path on a shared receiver host counts as another URL',
    )
    assert.equal((await patch({ url: URL_OK, name: 'renamed' })).status, 200, 'the same URL sent again needs nothing')
    const again = await patch({ url: elsewhere, secret: 'new-secret', auth: { type: 'bearer', token: 'new-token' }, headers: { 'X-Team': 'ops' } })
    assert.equal(again.status, 200, again.text)
    const dropped = await patch({ url: URL_OK, secret: null, auth: { type: 'none' }, headers: {} })
    assert.equal(dropped.status, 200, dropped.text)
    assert.equal(dropped.body.webhook.has_secret, false)
    // Basic: the optional password must be entered again too, or it would follow the URL to the new host.
    const basic = await c.t.req('POST', '/v1/webhooks', {
      token: owner(c),
      body: body({ active: false, auth: { type: 'basic', username: 'ci', password: 'pw-value' } }),
    })
    assert.equal(basic.status, 201, basic.text)
    made.push(basic.body.webhook.id)
    const basicPatch = (b: Record<string, unknown>) => c.t.req('PATCH', `/v1/webhooks/${basic.body.webhook.id}`, { token: owner(c), body: b })
    const userOnly = await basicPatch({ url: elsewhere, auth: { username: 'ci' } })
    assert.equal(userOnly.status, 422, userOnly.text)
    assert.deepEqual(
      userOnly.body.error.details.map((d: { path: string }) => d.path),
      ['auth.password'],
    )
    assert.equal((await basicPatch({ url: elsewhere, auth: { username: 'ci', password: 'new-pw' } })).status, 200)
    assert.equal((await basicPatch({ url: URL_OK, auth: { username: 'ci', password: null } })).status, 200, 'null: no password from now on')
  } finally {
    for (const id of made) await c.t.req('DELETE', `/v1/webhooks/${id}`, { token: owner(c) })
    await c.t.close()
  }
})
