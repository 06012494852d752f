// Pipelines through HTTP, on one fixture: CI runs from each host's hook (GitHub and Gitea workflow_run, GitLab Pipeline
// Hook; signed as the host signs them, computed here with node:crypto), their status mapped, linked to the cards their
// branch or head commit mention (directly or through pushed commits), the pipeline.failed rule acting as the connection;
// POST and PATCH for any other CI with the permission matrix, visibility, filters and expand=pipelines on cards.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, test } from 'node:test'
import { hubStatus, labStatus } from '../../src/resources/git/hooks.js'
import { seededFixture } from '../helpers/app.js'
import { dbAll, dbGet } from '../helpers/db.js'
import { assertErrorShape, assertSubset } from '../helpers/scenarios.js'

type Conn = { id: string; provider: 'github' | 'gitlab' | 'gitea'; secret: string }

const fixture = () =>
  seededFixture(async (s) => {
    const { t, tokens } = s
    const req = async (method: string, url: string, body?: unknown, token = tokens.member.write, status = 201) => {
      const r = await t.req(method, url, { token, body })
      assert.equal(r.status, status, `${method} ${url}: ${r.text}`)
      return r.body
    }
    const login = (await req('POST', '/v1/cards', { board: s.board.id, title: 'Login page' })).card // LCH-1
    const signup = (await req('POST', '/v1/cards', { board: s.board.id, title: 'Sign-up page' })).card // LCH-2
    const other = (await req('POST', '/v1/boards', { name: 'Other', key_prefix: 'OTH' }, tokens.outsider.write)).board
    const theirs = (await req('POST', '/v1/cards', { board: other.id, title: 'Theirs' }, tokens.outsider.write)).card // OTH-1
    const connect = async (provider: Conn['provider']): Promise<Conn> => {
      const made = await req('POST', '/v1/git/connections', { provider, name: `${provider} CI` }, tokens.owner.write)
      return { ...made.git_connection, secret: made.secret }
    }
    const github = await connect('github')
    const gitlab = await connect('gitlab')
    const gitea = await connect('gitea')
    const doing = s.lists.find((l) => l.name === 'In progress')!.id
    const repo = (
      await req(
        'POST',
        '/v1/git/repositories',
        { connection: github.id, full_name: 'octocat/Hello-World', board: s.board.id, rules: [{ on: 'pipeline.failed', move_to: doing }] },
        tokens.owner.write,
      )
    ).git_repository
    return { login, signup, other, theirs, github, gitlab, gitea, doing, repo }
  })

const ready = fixture()
after(async () => (await ready).t.close())
type C = Awaited<typeof ready>

const hmacHex = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex')
const EVENT_HEADER = { github: 'X-GitHub-Event', gitlab: 'X-Gitlab-Event', gitea: 'X-Gitea-Event' } as const
async function hook(c: C, conn: Conn, event: string, payload: unknown) {
  const body = JSON.stringify(payload)
  const sig: Record<string, string> =
    conn.provider === 'github'
      ? { 'X-Hub-Signature-256': `sha256=${hmacHex(conn.secret, body)}` }
      : conn.provider === 'gitea'
        ? { 'X-Gitea-Signature': hmacHex(conn.secret, body) }
        : { 'X-Gitlab-Token': conn.secret }
  const r = await c.t.req('POST', `/v1/git/connections/${conn.id}/hooks`, {
    raw: body,
    headers: { 'content-type': 'application/json', [EVENT_HEADER[conn.provider]]: event, ...sig },
  })
  assert.equal(r.status, 202, r.text)
  return r.body
}
const eventSeq = async (c: C) => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COALESCE(MAX(seq), 0) AS n FROM events'))!.n)
const eventsSince = async (c: C, seq: number) =>
  (await dbAll<{ name: string; data: string }>(c.t.deps.db, 'SELECT name, data FROM events WHERE seq > ? ORDER BY seq', seq)).map((e) => ({
    name: e.name,
    data: JSON.parse(e.data),
  }))
const pipelines = async (c: C, query: string, token = c.tokens.owner.read) => {
  const r = await c.t.req('GET', `/v1/pipelines?per_page=100&${query}`, { token })
  assert.equal(r.status, 200, r.text)
  return r.body.items as Record<string, any>[]
}
const SHA = (n: number) => n.toString(16).padStart(40, 'b')

// GitHub's documented workflow_run payload, cut to what matters (Gitea sends the same shape).
const workflowRun = (
  repo: { full_name: string; html_url: string },
  run: { id: number; action: string; status: string; conclusion: string | null; branch: string; sha: string; message: string },
) => ({
  action: run.action,
  workflow_run: {
    id: run.id,
    name: 'Build',
    node_id: 'WFR_kwLOAAAB',
    head_branch: run.branch,
    head_sha: run.sha,
    path: '.github/workflows/build.yml',
    display_title: run.message.split('\n')[0],
    run_number: 562,
    event: 'push',
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: 159038,
    html_url: `${repo.html_url}/actions/runs/${run.id}`,
    created_at: '2026-11-21T11:50:00Z',
    updated_at: run.status === 'completed' ? '2026-11-21T11:55:00Z' : '2026-11-21T11:51:00Z',
    run_attempt: 1,
    run_started_at: '2026-11-21T11:50:30Z',
    head_commit: { id: run.sha, tree_id: 'd23f6eedb1e1b9610bbc754ddb5197bfe7271223', message: run.message, timestamp: '2026-11-21T11:49:00Z' },
  },
  workflow: { id: 159038, name: 'Build', path: '.github/workflows/build.yml', state: 'active' },
  repository: { id: 1296269, ...repo },
  sender: { login: 'octocat', id: 1 },
})
const HELLO = { full_name: 'octocat/Hello-World', html_url: 'https://github.com/octocat/Hello-World' }

test('the hosts’ run statuses map to queued, running, success, failure and canceled', () => {
  const hub: [string | null, string | null, string][] = [
    ['queued', null, 'queued'],
    ['requested', null, 'queued'],
    ['waiting', null, 'queued'],
    ['in_progress', null, 'running'],
    ['completed', 'success', 'success'],
    ['completed', 'neutral', 'success'],
    ['completed', 'failure', 'failure'],
    ['completed', 'timed_out', 'failure'],
    ['completed', 'startup_failure', 'failure'],
    ['completed', 'cancelled', 'canceled'],
    ['completed', 'skipped', 'canceled'],
  ]
  for (const [status, conclusion, want] of hub) assert.equal(hubStatus(status, conclusion), want, `${status}/${conclusion}`)
  const lab: [string, string][] = [
    ['created', 'queued'],
    ['pending', 'queued'],
    ['manual', 'queued'],
    ['running', 'running'],
    ['success', 'success'],
    ['failed', 'failure'],
    ['canceled', 'canceled'],
    ['skipped', 'canceled'],
  ]
  for (const [status, want] of lab) assert.equal(labStatus(status), want, status)
})

test('a GitHub workflow_run becomes a pipeline linked to the cards its branch mentions; failing runs the rule as the connection', async () => {
  const c = await ready
  let before = await eventSeq(c)
  const run = { id: 30433642, branch: 'feature/lch-1-login', sha: SHA(1), message: 'Build the login page' }
  await hook(c, c.github, 'workflow_run', workflowRun(HELLO, { ...run, action: 'in_progress', status: 'in_progress', conclusion: null }))
  const [p] = await pipelines(c, `repository=${c.repo.id}`)
  assertSubset(p, {
    repository: c.repo.id,
    provider_id: '30433642',
    name: 'Build',
    branch: 'feature/lch-1-login',
    commit: SHA(1),
    status: 'running',
    url: 'https://github.com/octocat/Hello-World/actions/runs/30433642',
    started_at: '2026-11-21T11:50:30.000Z',
    finished_at: null,
    cards: [c.login.id],
    created_by: null,
  })
  let events = await eventsSince(c, before)
  assert.deepEqual(
    events.map((e) => e.name),
    ['pipeline.created'],
  )
  assertSubset(events[0].data, {
    status: 'running',
    previous_status: null,
    cards: [c.login.id],
    board: { id: c.board.id, name: 'Launch' },
    repository: { id: c.repo.id, name: 'octocat/Hello-World' },
    actor: { id: c.github.id, name: 'github CI', kind: 'git' },
  })

  before = await eventSeq(c)
  await hook(c, c.github, 'workflow_run', workflowRun(HELLO, { ...run, action: 'completed', status: 'completed', conclusion: 'failure' }))
  const [failed] = await pipelines(c, `repository=${c.repo.id}`)
  assertSubset(failed, { id: p.id, status: 'failure', finished_at: '2026-11-21T11:55:00.000Z' })
  const card = (await c.t.req('GET', `/v1/cards/${c.login.id}`, { token: c.tokens.member.read })).body.card
  assert.equal(card.list, c.doing, 'the pipeline.failed rule moved it')
  events = await eventsSince(c, before)
  assert.equal(events[0].name, 'pipeline.updated')
  assertSubset(events[0].data, { status: 'failure', previous_status: 'running' })
  assert.ok(events.some((e) => e.name === 'card.moved'))
  for (const e of events) assert.deepEqual(e.data.actor, { id: c.github.id, name: 'github CI', kind: 'git' })

  // The same hook again changes nothing and announces nothing; the rule does not run twice.
  await c.t.req('POST', `/v1/cards/${c.login.id}/move`, { token: c.tokens.member.write, body: { list: c.lists[0].id } })
  before = await eventSeq(c)
  await hook(c, c.github, 'workflow_run', workflowRun(HELLO, { ...run, action: 'completed', status: 'completed', conclusion: 'failure' }))
  assert.deepEqual(await eventsSince(c, before), [])
  assert.equal((await c.t.req('GET', `/v1/cards/${c.login.id}`, { token: c.tokens.member.read })).body.card.list, c.lists[0].id)
})

test('a GitLab Pipeline Hook links through the pushed commit that mentions a card', async () => {
  const c = await ready
  const project = { id: 15, name: 'Diaspora', web_url: 'http://example.com/mike/diaspora', path_with_namespace: 'mike/diaspora' }
  await hook(c, c.gitlab, 'Push Hook', {
    object_kind: 'push',
    ref: 'refs/heads/master',
    before: '95790bf891e76fee5e1747ab589903a6a1f80f22',
    after: SHA(5),
    user_name: 'John Smith',
    user_username: 'jsmith',
    project,
    commits: [
      { id: SHA(5), message: 'Fix lch-2', title: 'Fix lch-2', url: `http://example.com/mike/diaspora/commit/${SHA(5)}`, author: { name: 'John Smith' } },
    ],
  })
  await hook(c, c.gitlab, 'Pipeline Hook', {
    object_kind: 'pipeline',
    object_attributes: {
      id: 31,
      iid: 3,
      name: null,
      ref: 'master',
      tag: false,
      sha: SHA(5),
      before_sha: '95790bf891e76fee5e1747ab589903a6a1f80f22',
      source: 'push',
      status: 'failed',
      detailed_status: 'failed',
      stages: ['build', 'test'],
      created_at: '2026-11-21 11:40:00 UTC',
      finished_at: '2026-11-21 11:46:00 UTC',
      duration: 360,
      url: 'http://example.com/mike/diaspora/-/pipelines/31',
    },
    user: { id: 1, name: 'Administrator', username: 'root' },
    project,
    commit: { id: SHA(5), message: "Merge branch 'master'", title: "Merge branch 'master'", url: `http://example.com/mike/diaspora/commit/${SHA(5)}` },
    builds: [{ id: 380, stage: 'test', name: 'test', status: 'failed' }],
  })
  const [p] = await pipelines(c, `filter=${encodeURIComponent('provider_id = "31"')}`)
  assertSubset(p, {
    name: 'Pipeline #31',
    branch: 'master',
    commit: SHA(5),
    status: 'failure',
    started_at: '2026-11-21T11:40:00.000Z',
    finished_at: '2026-11-21T11:46:00.000Z',
    url: 'http://example.com/mike/diaspora/-/pipelines/31',
    cards: [c.signup.id],
  })
  // The repository has no board: no rule ran, the card stays where it was.
  assert.equal((await c.t.req('GET', `/v1/cards/${c.signup.id}`, { token: c.tokens.member.read })).body.card.list, c.lists[0].id)
})

test('a Gitea workflow_run (X-Gitea-Signature) becomes a pipeline; a run that concerns no card is announced workspace-wide', async () => {
  const c = await ready
  const repo = { full_name: 'gitea/webhooks', html_url: 'http://localhost:3000/gitea/webhooks' }
  await hook(
    c,
    c.gitea,
    'workflow_run',
    workflowRun(repo, { id: 77, action: 'completed', status: 'completed', conclusion: 'success', branch: 'main', sha: SHA(7), message: 'LCH-2: sign-up' }),
  )
  const before = await eventSeq(c)
  await hook(
    c,
    c.gitea,
    'workflow_run',
    workflowRun(repo, { id: 78, action: 'requested', status: 'queued', conclusion: null, branch: 'main', sha: SHA(8), message: 'Nothing' }),
  )
  const [done] = await pipelines(c, `filter=${encodeURIComponent('provider_id = "77"')}`)
  assertSubset(done, { status: 'success', cards: [c.signup.id], url: 'http://localhost:3000/gitea/webhooks/actions/runs/77' })
  const [queued] = await pipelines(c, `filter=${encodeURIComponent('provider_id = "78"')}`)
  assertSubset(queued, { status: 'queued', started_at: '2026-11-21T11:50:30.000Z', finished_at: null, cards: [] })
  const events = await eventsSince(c, before)
  assertSubset(events, [{ name: 'pipeline.created', data: { cards: [], board: null } }])
  assert.equal((await dbGet<{ board_id: string | null }>(c.t.deps.db, 'SELECT board_id FROM events WHERE seq > ?', before))!.board_id, null)
})

test('POST /v1/pipelines: any CI reports a run with a write token of someone who sees the repository', async () => {
  const c = await ready
  const post = (body: Record<string, unknown>, token = c.tokens.member.write) => c.t.req('POST', '/v1/pipelines', { token, body })
  const base = { repository: 'OCTOCAT/hello-world', provider_id: 'jenkins-1', name: 'Jenkins: build', branch: 'lch-2-ci', status: 'running' }
  const before = await eventSeq(c)
  const made = await post(base)
  assert.equal(made.status, 201, made.text)
  assertSubset(made.body, {
    pipeline: {
      repository: c.repo.id,
      provider_id: 'jenkins-1',
      branch: 'lch-2-ci',
      commit: null,
      status: 'running',
      started_at: '2026-11-21T12:00:00.000Z',
      finished_at: null,
      cards: [c.signup.id],
      created_by: { id: c.member.id },
    },
  })
  const events = await eventsSince(c, before)
  assertSubset(events, [{ name: 'pipeline.created', data: { actor: { id: c.member.id } } }])
  assert.equal(events[0].data.actor.kind, undefined)
  assert.equal((await post(base)).status, 409, 'the provider_id is taken')
  assert.equal((await post({ ...base, provider_id: 'x' }, c.tokens.member.read)).status, 403)
  const byId = await post({ ...base, repository: c.repo.id, provider_id: undefined, branch: null, status: 'queued' }, c.tokens.admin.write)
  assert.equal(byId.status, 201)
  assert.equal(byId.body.pipeline.provider_id, byId.body.pipeline.id, 'provider_id defaults to the record id')
  for (const [body, field, token] of [
    [{ ...base, provider_id: 'y' }, 'repository', c.tokens.outsider.write], // not a repository the outsider sees
    [{ ...base, repository: 'nobody/nothing' }, 'repository', c.tokens.owner.write],
    [{ ...base, status: 'done' }, 'status', c.tokens.member.write],
    [{ ...base, commit: 'xyz' }, 'commit', c.tokens.member.write],
    [{ ...base, url: 'ftp://ci' }, 'url', c.tokens.member.write],
    [{ ...base, started_at: 'yesterday' }, 'started_at', c.tokens.member.write],
    [{ ...base, name: '' }, 'name', c.tokens.member.write],
  ] as const) {
    const r = await post(body as Record<string, unknown>, token)
    assert.equal(r.status, 422, `${field}: ${r.text}`)
    assertErrorShape(r.body)
    assert.ok(
      r.body.error.details.some((d: { path: string }) => d.path === field),
      `${field}: ${r.text}`,
    )
  }
  // Two connections with a repository of the same name: the full name no longer says which.
  await c.t.req('POST', '/v1/git/repositories', {
    token: c.tokens.owner.write,
    body: { connection: c.gitea.id, full_name: 'octocat/hello-world', url: 'http://localhost:3000/octocat/hello-world' },
  })
  const ambiguous = await post({ ...base, provider_id: 'z' }, c.tokens.owner.write)
  assert.equal(ambiguous.status, 422)
  assert.match(ambiguous.body.error.message, /record id/)
})

test('PATCH /v1/pipelines/{id}: the status sets the times; the change is announced with its previous status', async () => {
  const c = await ready
  const [p] = await pipelines(c, `filter=${encodeURIComponent('provider_id = "jenkins-1"')}`)
  const patch = (body: unknown, token = c.tokens.member.write) => c.t.req('PATCH', `/v1/pipelines/${p.id}`, { token, body })
  assert.equal((await patch({ status: 'success' }, c.tokens.outsider.write)).status, 404)
  assert.equal((await patch({ status: 'success' }, c.tokens.member.read)).status, 403)
  assert.equal((await patch({ status: 'nope' })).status, 422)
  c.t.clock.advance(60_000)
  const before = await eventSeq(c)
  const done = await patch({ status: 'success', url: 'https://ci.example.com/job/1/' })
  assert.equal(done.status, 200, done.text)
  assertSubset(done.body, {
    pipeline: { status: 'success', started_at: '2026-11-21T12:00:00.000Z', finished_at: '2026-11-21T12:01:00.000Z', url: 'https://ci.example.com/job/1/' },
  })
  assertSubset(await eventsSince(c, before), [{ name: 'pipeline.updated', data: { status: 'success', previous_status: 'running', cards: [c.signup.id] } }])
  const same = await eventSeq(c)
  assert.equal((await patch({ status: 'success' })).status, 200)
  assert.deepEqual(await eventsSince(c, same), [], 'nothing changed, nothing announced')
  const rerun = await patch({ status: 'running', started_at: '2026-11-21T12:05:00+01:00' })
  assertSubset(rerun.body, { pipeline: { status: 'running', started_at: '2026-11-21T11:05:00.000Z', finished_at: null } })
})

test('pipelines are seen through their cards or their repository’s board, with only the cards the caller sees', async () => {
  const c = await ready
  const all = await pipelines(c, '')
  const mine = await pipelines(c, '', c.tokens.member.read)
  const theirs = await pipelines(c, '', c.tokens.outsider.read)
  assert.equal(theirs.length, 0)
  // The member sees the runs of the repository on their board and those concerning their cards, not the Gitea run that concerns none.
  assert.deepEqual(
    mine.map((p) => p.provider_id).sort(),
    all
      .filter((p) => p.provider_id !== '78')
      .map((p) => p.provider_id)
      .sort(),
  )
  const one = all.find((p) => p.provider_id === '31')!
  assert.equal((await c.t.req('GET', `/v1/pipelines/${one.id}`, { token: c.tokens.outsider.read })).status, 404)
  const expanded = await c.t.req('GET', `/v1/pipelines/${one.id}?expand=repository`, { token: c.tokens.member.read })
  assertSubset(expanded.body, { pipeline: { id: one.id, expand: { repository: { full_name: 'mike/diaspora', board: null } } } })
  const failing = await pipelines(c, `filter=${encodeURIComponent('status = "failure"')}&sort=name`, c.tokens.member.read)
  assert.deepEqual(failing.map((p) => p.provider_id).sort(), ['30433642', '31'])
  const ofCard = await pipelines(c, `card=${c.signup.id}&sort=created`, c.tokens.member.read)
  assert.deepEqual(
    ofCard.map((p) => p.provider_id),
    ['31', '77', 'jenkins-1'],
  )
  assert.equal((await c.t.req('GET', `/v1/pipelines?card=${c.theirs.id}`, { token: c.tokens.member.read })).status, 404)
  assert.equal((await c.t.req('GET', '/v1/pipelines?sort=nope', { token: c.tokens.member.read })).status, 400)
})

test('cards gain expand=pipelines, newest first', async () => {
  const c = await ready
  const r = await c.t.req('GET', `/v1/cards/${c.signup.id}?expand=pipelines`, { token: c.tokens.member.read })
  assert.equal(r.status, 200, r.text)
  assert.deepEqual(
    r.body.card.expand.pipelines.map((p: { provider_id: string }) => p.provider_id),
    ['jenkins-1', '77', '31'],
  )
  const page = await c.t.req('GET', `/v1/cards?board=${c.board.id}&expand=pipelines,git&sort=key`, { token: c.tokens.member.read })
  assert.equal(page.status, 200)
  assert.deepEqual(
    page.body.items.map((i: { expand: { pipelines: unknown[] } }) => i.expand.pipelines.length),
    [1, 3],
  )
})

test('DELETE: owners and admins, or who reported the run', async () => {
  const c = await ready
  const all = await pipelines(c, '')
  const hooked = all.find((p) => p.provider_id === '30433642')!
  const reported = all.find((p) => p.provider_id === 'jenkins-1')!
  assert.equal((await c.t.req('DELETE', `/v1/pipelines/${hooked.id}`, { token: c.tokens.member.write })).status, 403)
  assert.equal((await c.t.req('DELETE', `/v1/pipelines/${reported.id}`, { token: c.tokens.outsider.write })).status, 404)
  assert.equal((await c.t.req('DELETE', `/v1/pipelines/${reported.id}`, { token: c.tokens.member.write })).status, 204)
  assert.equal((await c.t.req('DELETE', `/v1/pipelines/${hooked.id}`, { token: c.tokens.admin.write })).status, 204)
  assert.equal((await pipelines(c, '')).length, all.length - 2)
})
