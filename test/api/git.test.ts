// Git hosts through HTTP, on one fixture: connections (owners and admins only, the secret shown once and sealed at
// rest), hooks signed by each host's own scheme (computed here with node:crypto) applied, and wrong, missing or
// swapped signatures refused with 401 and nothing stored; key mentions (any case, whole words, old prefixes); the
// repository's board and rules (moving and completing cards as the connection, with the card events); resources with
// their visibility, filter and expand=git on cards. Payloads follow the hosts' documented examples, cut to what matters.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, test } from 'node:test'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApp } from '../../src/app.js'
import { createLogger } from '../../src/log.js'
import { seededFixture } from '../helpers/app.js'
import { dbAll, dbGet } from '../helpers/db.js'
import { assertErrorShape, assertSubset } from '../helpers/scenarios.js'
import { until } from '../helpers/until.js'

type Conn = { id: string; provider: 'github' | 'gitlab' | 'gitea'; hook_url: string; secret: string }

// GitHub's documented example secret.
const GITHUB_SECRET = "It's a Secret to Everybody"

const fixture = () =>
  seededFixture(async (s) => {
    const { t, tokens } = s
    const req = async (method: string, url: string, body?: unknown, token = tokens.member.write, status = 201) => {
      const r = await t.req(method, url, { token, body })
      assert.equal(r.status, status, `${method} ${url}: ${r.text}`)
      return r.body
    }
    const card = async (board: string, title: string, token = tokens.member.write) => (await req('POST', '/v1/cards', { board, title }, token)).card
    const login = await card(s.board.id, 'Login page') // LCH-1
    const signup = await card(s.board.id, 'Sign-up page') // LCH-2
    const other = (await req('POST', '/v1/boards', { name: 'Other', key_prefix: 'OTH' }, tokens.outsider.write)).board
    const theirs = await card(other.id, 'Their card', tokens.outsider.write) // OTH-1
    // A board whose prefix changed: OLD-1 was numbered under OLD, NEW-2 after the change.
    const renamed = (await req('POST', '/v1/boards', { name: 'Renamed', key_prefix: 'OLD' }, tokens.owner.write)).board
    const oldOne = await card(renamed.id, 'Numbered under OLD', tokens.owner.write)
    await req('PATCH', `/v1/boards/${renamed.id}`, { key_prefix: 'NEW' }, tokens.owner.write, 200)
    const newTwo = await card(renamed.id, 'Numbered under NEW', tokens.owner.write)
    const connect = async (provider: Conn['provider'], secret?: string): Promise<Conn> => {
      const made = await req('POST', '/v1/git/connections', { provider, name: `${provider} hooks`, ...(secret ? { secret } : {}) }, tokens.admin.write)
      return { ...made.git_connection, secret: made.secret }
    }
    const github = await connect('github', GITHUB_SECRET)
    const gitlab = await connect('gitlab', 'gitlab-token-123')
    const gitea = await connect('gitea')
    const list = (name: string) => s.lists.find((l) => l.name === name)!.id
    return { login, signup, other, theirs, renamed, oldOne, newTwo, github, gitlab, gitea, todo: list('To do'), doing: list('In progress'), done: list('Done') }
  })

const ready = fixture()
after(async () => (await ready).t.close())
type C = Awaited<typeof ready>

// Each host's own scheme, computed independently of the server's code.
const hmacHex = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex')
const EVENT_HEADER = { github: 'X-GitHub-Event', gitlab: 'X-Gitlab-Event', gitea: 'X-Gitea-Event' } as const
function signed(conn: Conn, body: string, secret = conn.secret): Record<string, string> {
  if (conn.provider === 'github') return { 'X-Hub-Signature-256': `sha256=${hmacHex(secret, body)}` }
  if (conn.provider === 'gitea') return { 'X-Gitea-Signature': hmacHex(secret, body) }
  return { 'X-Gitlab-Token': secret }
}
async function hook(c: C, conn: Conn, event: string, payload: unknown, opts: { headers?: Record<string, string>; unsigned?: boolean } = {}) {
  const body = JSON.stringify(payload)
  const headers = { 'content-type': 'application/json', [EVENT_HEADER[conn.provider]]: event, ...(opts.unsigned ? {} : signed(conn, body)), ...opts.headers }
  return c.t.req('POST', `/v1/git/connections/${conn.id}/hooks`, { raw: body, headers })
}

const eventSeq = async (c: C) => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))!.n)
const eventsSince = async (c: C, seq: number) =>
  (await dbAll<{ name: string; data: string }>(c.t.deps.db, 'SELECT name, data FROM events WHERE seq > ? ORDER BY seq', seq)).map((e) => ({
    name: e.name,
    data: JSON.parse(e.data),
  }))
const counts = async (c: C) => ({
  repositories: Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COUNT(*) AS n FROM git_repositories'))!.n),
  resources: Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COUNT(*) AS n FROM git_resources'))!.n),
  events: await eventSeq(c),
})
const resources = async (c: C, query: string, token = (x: C) => x.tokens.owner.read) => {
  const r = await c.t.req('GET', `/v1/git/resources?per_page=100&${query}`, { token: token(c) })
  assert.equal(r.status, 200, r.text)
  return r.body.items as { id: string; kind: string; ref: string; title: string; state: string; author: string | null; cards: string[]; url: string }[]
}
const cardOf = async (c: C, id: string) => (await c.t.req('GET', `/v1/cards/${id}`, { token: c.tokens.owner.read })).body.card

// Minimal but faithful payloads (GitHub's and Gitea's documented push and pull_request; GitLab's Push Hook).
const ghRepo = { id: 1296269, name: 'Hello-World', full_name: 'octocat/Hello-World', html_url: 'https://github.com/octocat/Hello-World', private: false }
const ghPush = (branch: string, commits: { id: string; message: string }[], extra: object = {}) => ({
  ref: `refs/heads/${branch}`,
  before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
  after: commits.at(-1)?.id ?? '0000000000000000000000000000000000000000',
  created: false,
  deleted: false,
  forced: false,
  repository: ghRepo,
  pusher: { name: 'octocat', email: 'octocat@github.com' },
  sender: { login: 'octocat', id: 1 },
  commits: commits.map((cm) => ({
    id: cm.id,
    tree_id: 'f9d2a07e9488b91af2641b26b9407fe22a451433',
    distinct: true,
    message: cm.message,
    timestamp: '2026-11-21T11:58:00Z',
    url: `https://github.com/octocat/Hello-World/commit/${cm.id}`,
    author: { name: 'Mona Lisa', email: 'mona@github.com', username: 'monalisa' },
    committer: { name: 'GitHub', email: 'noreply@github.com', username: 'web-flow' },
    added: [],
    removed: [],
    modified: ['README.md'],
  })),
  ...extra,
})
const ghPull = (action: string, pr: { number: number; title: string; body: string | null; state: string; merged: boolean; head: string }) => ({
  action,
  number: pr.number,
  pull_request: {
    url: `https://api.github.com/repos/octocat/Hello-World/pulls/${pr.number}`,
    id: 1000 + pr.number,
    html_url: `https://github.com/octocat/Hello-World/pull/${pr.number}`,
    number: pr.number,
    state: pr.state,
    locked: false,
    title: pr.title,
    user: { login: 'monalisa', id: 2 },
    body: pr.body,
    created_at: '2026-11-21T11:00:00Z',
    merged: pr.merged,
    merged_at: pr.merged ? '2026-11-21T12:00:00Z' : null,
    head: { label: `octocat:${pr.head}`, ref: pr.head, sha: 'e5bd3914e2e596debea16f433f57875b5b90bcd6' },
    base: { label: 'octocat:main', ref: 'main', sha: '9049f1265b7d61be4a8904a9a27120d2064dab3b' },
  },
  repository: ghRepo,
  sender: { login: 'monalisa', id: 2 },
})
const SHA = (n: number) => n.toString(16).padStart(40, 'a')

test('connections: owners and admins only; the secret is shown once, sealed at rest, and hook_url comes from the base URL', async () => {
  const c = await ready
  const { tokens } = c
  for (const [method, path, token] of [
    ['GET', '/v1/git/connections', tokens.member.read],
    ['GET', `/v1/git/connections/${c.github.id}`, tokens.member.read],
    ['POST', '/v1/git/connections', tokens.member.write],
    ['PATCH', `/v1/git/connections/${c.github.id}`, tokens.member.write],
    ['DELETE', `/v1/git/connections/${c.github.id}`, tokens.member.write],
    ['POST', '/v1/git/connections', tokens.admin.read],
  ] as const) {
    const body = method === 'POST' ? { provider: 'github', name: 'x' } : method === 'PATCH' ? { name: 'x' } : undefined
    const r = await c.t.req(method, path, { token, body })
    assert.equal(r.status, 403, `${method} ${path}: ${r.text}`)
    assertErrorShape(r.body)
  }
  assert.equal(c.github.secret, GITHUB_SECRET, 'a given secret is what is stored')
  assert.match(c.gitea.secret, /^[0-9a-f]{64}$/, 'a generated one is 64 hex digits')
  assert.equal(c.github.hook_url, `http://taskd.test/v1/git/connections/${c.github.id}/hooks`)
  const got = await c.t.req('GET', `/v1/git/connections/${c.gitea.id}`, { token: tokens.owner.read })
  assert.equal(got.status, 200)
  assert.equal(JSON.stringify(got.body).includes(c.gitea.secret), false, 'never shown again')
  assertSubset(got.body, { git_connection: { provider: 'gitea', name: 'gitea hooks', created_by: { id: c.admin.id } } })
  const listed = await c.t.req('GET', '/v1/git/connections?sort=created&filter=provider%20%21%3D%20%22gitea%22', { token: tokens.admin.read })
  assert.deepEqual(
    listed.body.items.map((i: { provider: string }) => i.provider),
    ['github', 'gitlab'],
  )
  const stored = await dbAll<{ secret_enc: string }>(c.t.deps.db, 'SELECT secret_enc FROM git_connection_secrets')
  assert.equal(stored.length, 3)
  for (const { secret_enc } of stored)
    for (const secret of [c.github.secret, c.gitlab.secret, c.gitea.secret]) assert.ok(!secret_enc.includes(secret), 'sealed')
  for (const [body, field] of [
    [{ provider: 'bitbucket', name: 'x' }, 'provider'],
    [{ provider: 'github', name: '' }, 'name'],
    [{ provider: 'github', name: 'x', secret: 'short' }, 'secret'],
    [{ provider: 'github', name: 'x', secret: 'sécret-with-accent' }, 'secret'],
  ] as const) {
    const r = await c.t.req('POST', '/v1/git/connections', { token: tokens.owner.write, body })
    assert.equal(r.status, 422, r.text)
    assert.ok(
      r.body.error.details.some((d: { path: string }) => d.path === field),
      r.text,
    )
  }
})

test('a GitHub push signed with X-Hub-Signature-256 links its branch and commits to the cards they mention, as the connection', async () => {
  const c = await ready
  const before = await eventSeq(c)
  const r = await hook(
    c,
    c.github,
    'push',
    ghPush('feature/lch-1-login', [
      { id: SHA(1), message: 'Fix LCH-2: the sign-up button\n\nAlso touches OTH-1.' },
      { id: SHA(2), message: 'Refs XLCH-1, LCH-1a, LCH-10 and LCH-1.5: none of them names the login page' },
      { id: SHA(3), message: 'Nothing to link here' },
    ]),
  )
  assert.equal(r.status, 202, r.text)
  assert.deepEqual(r.body, { accepted: true, event: 'push', handled: true })
  const repo = (await c.t.req('GET', '/v1/git/repositories', { token: c.tokens.owner.read })).body.items
  assertSubset(repo, [{ connection: c.github.id, full_name: 'octocat/Hello-World', url: 'https://github.com/octocat/Hello-World', board: null, rules: [] }])
  const items = await resources(c, 'sort=kind,ref')
  assertSubset(items, [
    {
      kind: 'branch',
      ref: 'feature/lch-1-login',
      title: 'feature/lch-1-login',
      state: 'active',
      author: 'octocat',
      url: 'https://github.com/octocat/Hello-World/tree/feature/lch-1-login',
      cards: [c.login.id],
    },
    { kind: 'commit', ref: SHA(1), title: 'Fix LCH-2: the sign-up button', state: 'pushed', author: 'monalisa', cards: [c.signup.id, c.theirs.id] },
  ])
  const events = await eventsSince(c, before)
  assert.deepEqual(
    events.map((e) => `${e.name} ${e.data.card.key}`),
    ['git_resource.linked LCH-1', 'git_resource.linked LCH-2', 'git_resource.linked OTH-1'],
  )
  assert.deepEqual(events[0].data.actor, { id: c.github.id, name: 'github hooks', kind: 'git' })
  assertSubset(events[1].data, { kind: 'commit', repository: { name: 'octocat/Hello-World' }, board: { id: c.board.id, name: 'Launch' } })
})

test('a wrong, missing or swapped signature is 401 and stores nothing', async () => {
  const c = await ready
  const payload = ghPush('lch-2-other', [{ id: SHA(9), message: 'LCH-2 again' }])
  const body = JSON.stringify(payload)
  const start = await counts(c)
  const cases: [Conn, Record<string, string>][] = [
    [c.github, { 'X-Hub-Signature-256': `sha256=${hmacHex('not the secret', body)}` }],
    [c.github, { 'X-Hub-Signature-256': hmacHex(c.github.secret, body) }], // no sha256= prefix
    [c.github, {}],
    [c.github, { 'X-Hub-Signature-256': `sha256=${hmacHex(c.github.secret, `${body} `)}` }], // signed over other bytes
    [c.gitea, { 'X-Hub-Signature-256': `sha256=${hmacHex(c.gitea.secret, body)}` }], // GitHub's header to a Gitea connection
    [c.gitea, { 'X-Gitea-Signature': hmacHex(c.github.secret, body) }], // another connection's secret
    [c.gitlab, { 'X-Hub-Signature-256': `sha256=${hmacHex(c.gitlab.secret, body)}` }], // GitHub's scheme to GitLab
    [c.gitlab, { 'X-Gitlab-Token': 'gitlab-token-12' }],
    [c.github, { 'X-Gitlab-Token': c.github.secret }], // GitLab's scheme to GitHub
  ]
  for (const [conn, headers] of cases) {
    const event = conn.provider === 'gitlab' ? 'Push Hook' : 'push'
    const r = await c.t.req('POST', `/v1/git/connections/${conn.id}/hooks`, {
      raw: body,
      headers: { 'content-type': 'application/json', [EVENT_HEADER[conn.provider]]: event, ...headers },
    })
    assert.equal(r.status, 401, `${conn.provider} ${JSON.stringify(headers)}: ${r.text}`)
    assert.deepEqual(r.body, { error: { code: 'unauthorized', message: 'The hook is not signed with this connection’s secret.' } }, 'no detail to the caller')
  }
  assert.deepEqual(await counts(c), start, 'nothing stored, nothing emitted')
})

test('the request log line of a refused hook says why (the caller is not told)', async () => {
  const c = await ready
  // The same deps served once more with a logger that keeps its lines (the test app's is silent).
  const lines: string[] = []
  const { app } = createApp(c.t.deps, { logger: createLogger('info', 'json', (l) => lines.push(l)) })
  const server = http.createServer(app)
  try {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const body = JSON.stringify(ghPush('x', []))
    const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/git/connections/${c.github.id}/hooks`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': `sha256=${hmacHex('guess', body)}` },
    })
    assert.equal(r.status, 401)
    await until('the request log line', () => lines.length > 0)
    assertSubset(JSON.parse(lines[0]), {
      route: '/v1/git/connections/{id}/hooks',
      status: 401,
      note: 'git hook refused: X-Hub-Signature-256 does not match the body',
    })
    assert.ok(!lines[0].includes(c.github.secret), 'never the secret')
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }
  const pretty: string[] = []
  const entry = { method: 'POST', route: '/v1/git/connections/{id}/hooks', status: 401, duration_ms: 1, request_id: 'r', actor: null }
  createLogger('info', 'pretty', (l) => pretty.push(l)).request({ ...entry, note: 'git hook refused: X-Gitlab-Token does not match' })
  createLogger('info', 'pretty', (l) => pretty.push(l)).request(entry)
  assert.ok(pretty[0].endsWith('note="git hook refused: X-Gitlab-Token does not match"'), pretty[0])
  assert.ok(!pretty[1].includes('note='), 'no note when there is none')
})

test('a GitLab Push Hook (X-Gitlab-Token) links through an old key prefix, never past it', async () => {
  const c = await ready
  const before = await eventSeq(c)
  const r = await hook(c, c.gitlab, 'Push Hook', {
    object_kind: 'push',
    event_name: 'push',
    before: '95790bf891e76fee5e1747ab589903a6a1f80f22',
    after: SHA(20),
    ref: 'refs/heads/master',
    checkout_sha: SHA(20),
    user_id: 4,
    user_name: 'John Smith',
    user_username: 'jsmith',
    project_id: 15,
    project: {
      id: 15,
      name: 'Diaspora',
      web_url: 'http://example.com/mike/diaspora',
      path_with_namespace: 'mike/diaspora',
      default_branch: 'master',
    },
    commits: [
      {
        id: SHA(20),
        message: 'Update Catalan translation to old-1, see also OLD-2 and new-2\n',
        title: 'Update Catalan translation to old-1, see also OLD-2 and new-2',
        timestamp: '2026-11-21T11:57:00+02:00',
        url: `http://example.com/mike/diaspora/commit/${SHA(20)}`,
        author: { name: 'Jordi Mallach', email: 'jordi@softcatala.org' },
      },
    ],
    total_commits_count: 1,
    repository: { name: 'Diaspora', url: 'git@example.com:mike/diaspora.git', homepage: 'http://example.com/mike/diaspora' },
  })
  assert.equal(r.status, 202, r.text)
  const [commit] = await resources(c, `filter=${encodeURIComponent(`ref = "${SHA(20)}"`)}`)
  assert.deepEqual(commit.cards, [c.oldOne.id, c.newTwo.id], 'old-1 names NEW-1; OLD-2 was never a key; new-2 is NEW-2')
  assertSubset(commit, { author: 'Jordi Mallach', title: 'Update Catalan translation to old-1, see also OLD-2 and new-2' })
  assert.deepEqual(
    (await eventsSince(c, before)).map((e) => e.data.card.key),
    ['NEW-1', 'NEW-2'],
  )
  // The repository's branch master mentions nothing: not stored.
  assert.equal((await resources(c, 'filter=kind%20%3D%20%22branch%22%20%26%26%20ref%20%3D%20%22master%22')).length, 0)
})

test('a Gitea push (X-Gitea-Signature) links; GitHub’s ping and events taskd does not act on are 202 and change nothing', async () => {
  const c = await ready
  const r = await hook(c, c.gitea, 'push', {
    ref: 'refs/heads/develop',
    before: '28e1879d029cb852e4844d9c718537df08844e03',
    after: SHA(30),
    compare_url: 'http://localhost:3000/gitea/webhooks/compare/28e1879d029cb852e4844d9c718537df08844e03...bffeb74224043ba2feb48d137756c8a9331c449a',
    commits: [
      {
        id: SHA(30),
        message: '[lch-1] webhooks\n',
        url: `http://localhost:3000/gitea/webhooks/commit/${SHA(30)}`,
        author: { name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
        committer: { name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
        timestamp: '2017-03-13T13:52:11-04:00',
      },
    ],
    repository: { id: 140, name: 'webhooks', full_name: 'gitea/webhooks', html_url: 'http://localhost:3000/gitea/webhooks', private: false },
    pusher: { id: 1, login: 'gitea', full_name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
    sender: { id: 1, login: 'gitea', full_name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
  })
  assert.equal(r.status, 202, r.text)
  assertSubset(await resources(c, `filter=${encodeURIComponent(`ref = "${SHA(30)}"`)}`), [
    { kind: 'commit', title: '[lch-1] webhooks', author: 'gitea', cards: [c.login.id] },
  ])
  const start = await counts(c)
  const ping = await hook(c, c.github, 'ping', { zen: 'Keep it logically awesome.', hook_id: 1, repository: ghRepo })
  assert.deepEqual(ping.body, { accepted: true, event: 'ping', handled: true })
  const issues = await hook(c, c.github, 'issues', { action: 'opened', issue: { number: 1, title: 'LCH-1 is broken' }, repository: ghRepo })
  assert.equal(issues.status, 202)
  assert.deepEqual(issues.body, { accepted: true, event: 'issues', handled: false })
  const note = await hook(c, c.gitlab, 'Note Hook', { object_kind: 'note' })
  assert.deepEqual(note.body, { accepted: true, event: 'Note Hook', handled: false })
  assert.deepEqual(await counts(c), start)
})

test('the receiver refuses what is not a hook: 405, 404, 400, 415 and 413, in the error shape', async () => {
  const c = await ready
  const url = `/v1/git/connections/${c.github.id}/hooks`
  const get = await c.t.req('GET', url)
  assert.equal(get.status, 405)
  assert.equal(get.headers.get('allow'), 'POST')
  const unknown = await c.t.req('POST', '/v1/git/connections/nope/hooks', { body: {} })
  assert.equal(unknown.status, 404)
  const noEvent = await hook(c, c.github, 'push', ghPush('x', []), { headers: { 'X-GitHub-Event': '' } })
  assert.equal(noEvent.status, 400, noEvent.text)
  const notJson = '{"ref": '
  const bad = await c.t.req('POST', url, {
    raw: notJson,
    headers: { 'content-type': 'application/json', 'X-GitHub-Event': 'push', ...signed(c.github, notJson) },
  })
  assert.equal(bad.status, 400)
  const shapeless = await hook(c, c.github, 'push', { ref: 42 })
  assert.equal(shapeless.status, 400)
  assert.match(shapeless.body.error.message, /push hook payload/)
  // Names and URLs are bounded (2,000 characters); a commit message is not (only its first line is kept).
  const longBranch = await hook(c, c.github, 'push', ghPush(`b${'x'.repeat(2000)}`, []))
  assert.equal(longBranch.status, 400, longBranch.text)
  assert.match(longBranch.body.error.message, /push hook payload: ref /)
  const longMessage = await hook(c, c.github, 'push', ghPush('long-message', [{ id: SHA(7), message: `A title\n\n${'y'.repeat(50_000)}` }]))
  assert.equal(longMessage.status, 202, longMessage.text)
  const xml = await c.t.req('POST', url, { raw: '<push/>', headers: { 'content-type': 'text/xml', 'X-GitHub-Event': 'push', ...signed(c.github, '<push/>') } })
  assert.equal(xml.status, 415)
  // GitHub's other content type: the JSON in a form field named payload.
  const form = `payload=${encodeURIComponent(JSON.stringify({ zen: 'Design for failure.', hook_id: 2 }))}`
  const pinged = await c.t.req('POST', url, {
    raw: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'X-GitHub-Event': 'ping', ...signed(c.github, form) },
  })
  assert.equal(pinged.status, 202, pinged.text)
  const huge = JSON.stringify({ ref: 'refs/heads/x', padding: 'x'.repeat(1_100_000) })
  const large = await c.t.req('POST', url, { raw: huge, headers: { 'content-type': 'application/json', 'X-GitHub-Event': 'push', ...signed(c.github, huge) } })
  assert.equal(large.status, 413)
  for (const r of [get, unknown, noEvent, bad, shapeless, longBranch, xml, large]) assertErrorShape(r.body)
})

test('repositories: owners and admins set the board and rules, checked against the board’s lists; members of the board read it', async () => {
  const c = await ready
  const repo = (await c.t.req('GET', '/v1/git/repositories?filter=full_name%20%3D%20%22octocat%2FHello-World%22', { token: c.tokens.owner.read })).body.items[0]
  const patch = (body: unknown, token = c.tokens.admin.write) => c.t.req('PATCH', `/v1/git/repositories/${repo.id}`, { token, body })
  assert.equal((await patch({ board: c.board.id }, c.tokens.member.write)).status, 403)
  assert.equal((await patch({ board: c.board.id }, c.tokens.admin.read)).status, 403)
  for (const [body, field] of [
    [{ rules: [{ on: 'pull_request.merged', complete: true }] }, 'rules'],
    [{ board: c.board.id, rules: [{ on: 'pull_request.merged' }] }, 'rules.0'],
    [{ board: c.board.id, rules: [{ on: 'issue.opened', complete: true }] }, 'rules.0.on'],
    [{ board: c.board.id, rules: [{ on: 'pull_request.opened', move_to: 'nope' }] }, 'rules.0.move_to'],
    [{ board: 'nope' }, 'board'],
    [{ board: c.board.id, rules: [{ on: 'pull_request.opened', move_to: c.done, complete: false }] }, 'rules.0.complete'],
  ] as const) {
    const r = await patch(body)
    assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`)
    assert.ok(
      r.body.error.details.some((d: { path: string }) => d.path === field),
      `${field}: ${r.text}`,
    )
  }
  // Another board's list is no list of this board.
  const theirList = (await c.t.req('GET', `/v1/lists?board=${c.other.id}`, { token: c.tokens.outsider.read })).body.items[0].id
  const foreign = await patch({ board: c.board.id, rules: [{ on: 'pull_request.opened', move_to: theirList }] })
  assert.equal(foreign.status, 422)
  const rules = [
    { on: 'pull_request.opened', move_to: c.doing },
    { on: 'pull_request.merged', complete: true },
  ]
  const ok = await patch({ board: c.board.id, rules })
  assert.equal(ok.status, 200, ok.text)
  assertSubset(ok.body, { git_repository: { board: c.board.id, rules } })
  const seen = await c.t.req('GET', `/v1/git/repositories/${repo.id}?`, { token: c.tokens.member.read })
  assert.equal(seen.status, 200)
  assert.equal((await c.t.req('GET', `/v1/git/repositories/${repo.id}`, { token: c.tokens.outsider.read })).status, 404)
  const page = await c.t.req('GET', `/v1/git/repositories?board=${c.board.id}&expand=board`, { token: c.tokens.member.read })
  assertSubset(page.body, { totalItems: 1, items: [{ id: repo.id, expand: { board: { id: c.board.id, name: 'Launch' } } }] })
  assert.equal((await c.t.req('GET', '/v1/git/repositories', { token: c.tokens.outsider.read })).body.totalItems, 0)
  // By hand: a name clash is 409, an unknown connection 422.
  const clash = await c.t.req('POST', '/v1/git/repositories', {
    token: c.tokens.owner.write,
    body: { connection: c.github.id, full_name: 'OCTOCAT/hello-world' },
  })
  assert.equal(clash.status, 409)
  const unknown = await c.t.req('POST', '/v1/git/repositories', { token: c.tokens.owner.write, body: { connection: 'nope', full_name: 'a/b' } })
  assert.equal(unknown.status, 422)
  const byHand = await c.t.req('POST', '/v1/git/repositories', {
    token: c.tokens.owner.write,
    body: { connection: c.gitlab.id, full_name: 'group/sub/project' },
  })
  assert.equal(byHand.status, 201, byHand.text)
  assertSubset(byHand.body, { git_repository: { url: 'https://gitlab.com/group/sub/project', board: null, rules: [] } })
})

test('a pull request opened moves its cards on the repository’s board, merged completes them, as the connection with the card events', async () => {
  const c = await ready
  let before = await eventSeq(c)
  const opened = await hook(
    c,
    c.github,
    'pull_request',
    ghPull('opened', {
      number: 7,
      title: 'Login page',
      body: 'Closes lch-1.\r\n\r\nMentions OTH-1 too, which is not on this board.',
      state: 'open',
      merged: false,
      head: 'login',
    }),
  )
  assert.equal(opened.status, 202, opened.text)
  const [pr] = await resources(c, 'filter=kind%20%3D%20%22pull_request%22')
  assertSubset(pr, {
    ref: '7',
    title: 'Login page',
    state: 'open',
    author: 'monalisa',
    url: 'https://github.com/octocat/Hello-World/pull/7',
    cards: [c.login.id],
  })
  assert.equal((await cardOf(c, c.login.id)).list, c.doing)
  let events = await eventsSince(c, before)
  assert.equal(events[0].name, 'git_resource.linked')
  assert.ok(events.some((e) => e.name === 'card.moved'))
  for (const e of events) assert.deepEqual(e.data.actor, { id: c.github.id, name: 'github hooks', kind: 'git' })

  // The same hook again (a redelivery) moves nothing back: the rule runs once per change.
  await c.t.req('POST', `/v1/cards/${c.login.id}/move`, { token: c.tokens.member.write, body: { list: c.todo } })
  before = await eventSeq(c)
  await hook(
    c,
    c.github,
    'pull_request',
    ghPull('opened', { number: 7, title: 'Login page', body: 'Closes lch-1.', state: 'open', merged: false, head: 'login' }),
  )
  assert.equal((await cardOf(c, c.login.id)).list, c.todo)
  assert.deepEqual(await eventsSince(c, before), [])

  const merged = await hook(
    c,
    c.github,
    'pull_request',
    ghPull('closed', { number: 7, title: 'Login page (LCH-1)', body: 'Closes lch-1.', state: 'closed', merged: true, head: 'login' }),
  )
  assert.equal(merged.status, 202)
  const card = await cardOf(c, c.login.id)
  assert.equal(card.completed, true)
  assert.equal(card.list, c.done, 'completed cards go to the first completed list')
  events = await eventsSince(c, before)
  assert.equal(events[0].name, 'git_resource.updated')
  assert.ok(events.some((e) => e.name === 'card.completed'))
  for (const e of events) assert.deepEqual(e.data.actor, { id: c.github.id, name: 'github hooks', kind: 'git' })
  const updated = events.find((e) => e.name === 'git_resource.updated')!
  assertSubset(updated.data, { state: 'merged', changes: ['state', 'title'], cards: [c.login.id], board: { id: c.board.id } })
})

test('a GitLab merge request merged with a repository board links only that board’s cards', async () => {
  const c = await ready
  const repo = (
    await c.t.req('GET', `/v1/git/repositories?connection=${c.gitlab.id}&filter=full_name%20%3D%20%22mike%2Fdiaspora%22`, { token: c.tokens.owner.read })
  ).body.items[0]
  await c.t.req('PATCH', `/v1/git/repositories/${repo.id}`, {
    token: c.tokens.owner.write,
    body: { board: c.board.id, rules: [{ on: 'pull_request.merged', move_to: c.doing }] },
  })
  const r = await hook(c, c.gitlab, 'Merge Request Hook', {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: { id: 1, name: 'Administrator', username: 'root' },
    project: { id: 15, name: 'Diaspora', web_url: 'http://example.com/mike/diaspora', path_with_namespace: 'mike/diaspora' },
    object_attributes: {
      id: 99,
      iid: 1,
      target_branch: 'master',
      source_branch: 'ms-viewport',
      title: 'MS-Viewport for LCH-2',
      description: 'Also OTH-1',
      state: 'merged',
      action: 'merge',
      url: 'http://example.com/mike/diaspora/-/merge_requests/1',
      last_commit: { id: SHA(21), message: 'fixed readme' },
    },
    repository: { name: 'Diaspora', url: 'git@example.com:mike/diaspora.git' },
  })
  assert.equal(r.status, 202, r.text)
  const [mr] = await resources(c, `repository=${repo.id}&filter=kind%20%3D%20%22pull_request%22`)
  assertSubset(mr, { ref: '1', state: 'merged', author: 'root', cards: [c.signup.id] })
  assert.equal((await cardOf(c, c.signup.id)).list, c.doing)
})

test('resources: seen through one of their cards or their repository’s board, cards of other boards hidden; filter, sort, page', async () => {
  const c = await ready
  const mine = await resources(c, '', (x) => x.tokens.member.read)
  const all = await resources(c, '')
  const theirs = await resources(c, '', (x) => x.tokens.outsider.read)
  // Both repositories are on the member's board now: the member sees all of their resources, but not the renamed
  // board's cards (the member is not on it).
  assert.equal(mine.length, all.length)
  assert.deepEqual(mine.find((r) => r.ref === SHA(20))!.cards, [])
  assert.deepEqual(all.find((r) => r.ref === SHA(20))!.cards, [c.oldOne.id, c.newTwo.id])
  assert.deepEqual(
    theirs.map((r) => r.cards),
    [[c.theirs.id]],
    'the outsider sees the commit linking OTH-1, with only that card',
  )
  const commit = all.find((r) => r.ref === SHA(1))!
  assert.deepEqual(commit.cards, [c.signup.id, c.theirs.id])
  assert.equal((await c.t.req('GET', `/v1/git/resources/${commit.id}`, { token: c.tokens.member.read })).body.git_resource.cards.length, 1)
  const pr = all.find((r) => r.kind === 'pull_request' && r.ref === '7')!
  assert.equal((await c.t.req('GET', `/v1/git/resources/${pr.id}`, { token: c.tokens.outsider.read })).status, 404)
  const expanded = await c.t.req('GET', `/v1/git/resources/${pr.id}?expand=repository`, { token: c.tokens.member.read })
  assertSubset(expanded.body, { git_resource: { id: pr.id, expand: { repository: { full_name: 'octocat/Hello-World' } } } })
  assert.equal((await c.t.req('GET', `/v1/git/resources/${pr.id}?expand=cards`, { token: c.tokens.member.read })).status, 400)
  const byCard = await c.t.req('GET', `/v1/git/resources?card=${c.login.id}&sort=kind`, { token: c.tokens.member.read })
  assert.deepEqual(
    byCard.body.items.map((r: { kind: string }) => r.kind),
    ['branch', 'commit', 'pull_request'],
  )
  assert.equal((await c.t.req('GET', `/v1/git/resources?card=${c.theirs.id}`, { token: c.tokens.member.read })).status, 404)
  const filtered = await c.t.req('GET', `/v1/git/resources?filter=${encodeURIComponent(`cards ~ "${c.signup.id}" && kind = "commit"`)}`, {
    token: c.tokens.member.read,
  })
  assert.deepEqual(
    filtered.body.items.map((r: { ref: string }) => r.ref),
    [SHA(1)],
  )
  const paged = await c.t.req('GET', '/v1/git/resources?per_page=1&page=2&sort=-created', { token: c.tokens.owner.read })
  assertSubset(paged.body, { page: 2, perPage: 1, totalItems: all.length })
  assert.equal((await c.t.req('GET', '/v1/git/resources?sort=nope', { token: c.tokens.owner.read })).status, 400)
  assert.equal((await c.t.req('GET', '/v1/git/resources?filter=nope%20%3D%201', { token: c.tokens.owner.read })).status, 400)
})

test('cards gain expand=git: their branches, commits and pull requests, newest first', async () => {
  const c = await ready
  const r = await c.t.req('GET', `/v1/cards/${c.login.id}?expand=git`, { token: c.tokens.member.read })
  assert.equal(r.status, 200, r.text)
  const git = r.body.card.expand.git as { kind: string; ref: string }[]
  assert.deepEqual(git.map((g) => g.kind).sort(), ['branch', 'commit', 'pull_request'])
  assert.equal(git[0].kind, 'pull_request', 'the pull request changed last')
  const page = await c.t.req('GET', `/v1/cards?board=${c.board.id}&expand=git&sort=key`, { token: c.tokens.member.read })
  const signup = page.body.items.find((i: { id: string }) => i.id === c.signup.id)
  assert.deepEqual(
    signup.expand.git.map((g: { cards: string[] }) => g.cards.includes(c.theirs.id)),
    [false, false],
    'no card of another board shows',
  )
})

test('a new secret replaces the old one at once; the name changes alone', async () => {
  const c = await ready
  const made = await c.t.req('POST', '/v1/git/connections', { token: c.tokens.owner.write, body: { provider: 'gitea', name: 'rotating' } })
  const conn = { ...made.body.git_connection, secret: made.body.secret } as Conn
  const ping = () => hook(c, conn, 'issues', { action: 'opened' })
  assert.equal((await ping()).status, 202)
  const renamed = await c.t.req('PATCH', `/v1/git/connections/${conn.id}`, {
    token: c.tokens.admin.write,
    body: { name: 'rotated', secret: 'a brand new secret' },
  })
  assert.equal(renamed.status, 200, renamed.text)
  assertSubset(renamed.body, { git_connection: { name: 'rotated', provider: 'gitea' } })
  assert.equal(JSON.stringify(renamed.body).includes('a brand new secret'), false)
  assert.equal((await ping()).status, 401, 'the old secret is dead')
  conn.secret = 'a brand new secret'
  assert.equal((await ping()).status, 202)
  assert.equal((await c.t.req('GET', '/v1/git/connections/nope', { token: c.tokens.owner.read })).status, 404)
  assert.equal((await c.t.req('DELETE', `/v1/git/connections/${conn.id}`, { token: c.tokens.owner.write })).status, 204)
})

test('a deleted connection takes its repositories and resources; the cards stay', async () => {
  const c = await ready
  const made = await c.t.req('POST', '/v1/git/connections', { token: c.tokens.owner.write, body: { provider: 'github', name: 'short-lived' } })
  const conn = { ...made.body.git_connection, secret: made.body.secret } as Conn
  await hook(c, conn, 'push', {
    ...ghPush('lch-2-temp', []),
    repository: { ...ghRepo, full_name: 'octocat/temp', html_url: 'https://github.com/octocat/temp' },
  })
  const repo = (await c.t.req('GET', `/v1/git/repositories?connection=${conn.id}`, { token: c.tokens.owner.read })).body.items
  assert.equal(repo.length, 1)
  assert.equal((await c.t.req('DELETE', `/v1/git/connections/${conn.id}`, { token: c.tokens.owner.write })).status, 204)
  assert.equal((await c.t.req('GET', `/v1/git/repositories/${repo[0].id}`, { token: c.tokens.owner.read })).status, 404)
  assert.equal((await c.t.req('GET', `/v1/cards/${c.signup.id}`, { token: c.tokens.owner.read })).status, 200)
  const gone = await c.t.req('POST', `/v1/git/connections/${conn.id}/hooks`, { body: {}, headers: { 'X-GitHub-Event': 'push' } })
  assert.equal(gone.status, 404)
})
