// The audit log through HTTP, on one fixture: each audited action (a table of requests and the entries they must
// write, in the request's transaction, with its request id and an audit.entry event), refused requests writing none,
// the list (owners and admins only; filter, sort, expand), no secret in any entry, event or delivery, audit.entry
// delivered to owners' and admins' subscriptions only, the command line's entries, and the retention by the
// housekeeping with the injected clock.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import Database from 'better-sqlite3'
import { Housekeeping } from '../../src/housekeeping.js'
import { runCli } from '../helpers/cli.js'
import { testDialect } from '../helpers/database.js'
import { dbAll } from '../helpers/db.js'
import { assertErrorShape, assertSubset } from '../helpers/scenarios.js'
import { createSub, webhookApp } from '../webhooks/fixtures.js'

/** Every secret the file hands taskd: none may show up in an entry, an audit.entry event or a delivery of one. */
const SECRETS = {
  webhook: 'whsec-audit-0123456789abcdefghij',
  basicPassword: 'pw-audit-9876543210-zyxwvu',
  bearer: 'bearer-audit-aabbccddeeff0011',
  incoming: 'inkey-audit-abcdef0123456789',
  signing: 'signing-audit-secret-0123456789',
  signingNew: 'signing-audit-rotated-9876543210',
  automationHeader: 'autohdr-audit-5555666677778888',
}
/** Values taskd makes and shows once (token values, a generated secret, a hook URL's random path), added as they come. */
const made: string[] = []

const fixture = async () => {
  // A timeout no attempt reaches on a busy machine: one that timed out would be retried only minutes later.
  const c = await webhookApp({ webhookTimeoutMs: 10_000 })
  try {
    const { t, tokens } = c
    const req = async (method: string, url: string, body?: unknown, token = tokens.owner.write, status = 201) => {
      const r = await t.req(method, url, { token, body })
      assert.equal(r.status, status, `${method} ${url}: ${r.text}`)
      return r.body
    }
    // The owner's subscription to the log (every board), and a member's to everything on the board: only the first gets it.
    const ownerSub = (
      await createSub(c, tokens.owner.write, { url: `${c.receiver.url}/ok?owner`, events: ['audit.entry'], boards: [], secret: SECRETS.webhook })
    ).webhook
    const memberSub = (await createSub(c, tokens.member.write, { url: `${c.receiver.url}/ok?member`, events: ['*'], boards: [c.board.id] })).webhook
    const side = (await req('POST', '/v1/boards', { name: 'Side', key_prefix: 'SID' })).board
    const gone = (await req('POST', '/v1/boards', { name: 'Gone', key_prefix: 'GON' })).board
    const spare = await req('POST', '/v1/tokens', { name: 'spare', permission: 'read' })
    made.push(spare.value)
    const person = await t.user('member', 'Pat Person')
    return { ...c, ownerSub, memberSub, side, gone, spare, person, ids: {} as Record<string, string> }
  } catch (err) {
    await c.close()
    throw err
  }
}

const ready = fixture()
after(async () => (await ready).close())
type C = Awaited<typeof ready>

interface Expected {
  action: string
  actor?: Record<string, unknown>
  target?: Record<string, unknown>
  board?: string | null
  details?: Record<string, unknown>
}

type Row = {
  name: string
  method: string
  path: (c: C) => string
  token?: (c: C) => string
  body?: (c: C) => unknown
  status: number
  /** The entries the request writes, in order ([] for none). */
  entries: (c: C, body: any) => Expected[]
  after?: (c: C, body: any) => void
}

const auditIds = async (c: C): Promise<Set<string>> => new Set((await dbAll<{ id: string }>(c.t.deps.db, 'SELECT id FROM audit_log')).map((r) => r.id))
const owner = (c: C) => ({ type: 'user', id: c.owner.id, name: 'owner 1' })
const admin = (c: C) => ({ type: 'user', id: c.admin.id, name: 'admin 2' })

function run(title: string, rows: Row[]) {
  for (const row of rows)
    test(`${title}: ${row.name}`, async () => {
      const c = await ready
      const before = await auditIds(c)
      const r = await c.t.req(row.method, row.path(c), { token: (row.token ?? ((c) => c.tokens.owner.full))(c), body: row.body?.(c) })
      assert.equal(r.status, row.status, r.text)
      if (r.status >= 400) assertErrorShape(r.body)
      row.after?.(c, r.body)
      const fresh = [...(await auditIds(c))].filter((id) => !before.has(id)).sort()
      const expected = row.entries(c, r.body)
      assert.equal(fresh.length, expected.length, `entries written: ${fresh.length}`)
      for (const [i, id] of fresh.entries()) {
        const got = await c.t.req('GET', `/v1/audit/${id}`, { token: c.tokens.admin.read })
        assert.equal(got.status, 200, got.text)
        const entry = got.body.audit_entry
        assertSubset(entry, expected[i])
        // The request's own id, and the event written with it in the same transaction.
        assert.equal(entry.request_id, r.headers.get('x-request-id'))
        const [event] = await dbAll<{ data: string; board_id: string | null }>(
          c.t.deps.db,
          "SELECT data, board_id FROM events WHERE name = 'audit.entry' AND data LIKE ?",
          `%${id}%`,
        )
        assert.ok(event, 'an audit.entry event')
        assert.deepEqual({ ...JSON.parse(event.data) }, entry, 'the event carries the entry as the log shows it')
        assert.equal(event.board_id, null, 'workspace-wide')
      }
    })
}

run('audited actions', [
  {
    name: 'token.created: who, which token, its permission and holder; the value never',
    method: 'POST',
    path: () => '/v1/tokens',
    token: (c) => c.tokens.admin.full,
    body: () => ({ name: 'CI deploys', permission: 'write' }),
    status: 201,
    after: (c, body) => made.push(body.value),
    entries: (c, body) => [
      {
        action: 'token.created',
        actor: admin(c),
        target: { type: 'token', id: body.token.id, name: 'CI deploys' },
        board: null,
        details: { permission: 'write', holder: { id: c.admin.id, name: 'admin 2' }, prefix: body.token.prefix, expires_at: null },
      },
    ],
  },
  {
    name: 'token.revoked',
    method: 'DELETE',
    path: (c) => `/v1/tokens/${c.spare.token.id}`,
    status: 204,
    entries: (c) => [
      { action: 'token.revoked', actor: owner(c), target: { type: 'token', id: c.spare.token.id, name: 'spare' }, details: { permission: 'read' } },
    ],
  },
  {
    name: 'a refused request writes nothing (a member asking for a Full Access token: 422)',
    method: 'POST',
    path: () => '/v1/tokens',
    token: (c) => c.tokens.member.write,
    body: () => ({ name: 'mine', permission: 'full' }),
    status: 422,
    entries: () => [],
  },
  {
    name: 'user.created',
    method: 'POST',
    path: () => '/v1/users',
    token: (c) => c.tokens.admin.full,
    body: () => ({ email: 'new.hire@example.test', name: 'New Hire', role: 'member' }),
    status: 201,
    after: (c, body) => (c.ids.hire = body.user.id),
    entries: (c, body) => [
      { action: 'user.created', actor: admin(c), target: { type: 'user', id: body.user.id, name: 'New Hire' }, details: { role: 'member' } },
    ],
  },
  {
    name: 'user.role_changed names the roles before and after',
    method: 'PATCH',
    path: (c) => `/v1/users/${c.ids.hire}`,
    body: () => ({ role: 'admin' }),
    status: 200,
    entries: (c) => [{ action: 'user.role_changed', actor: owner(c), target: { type: 'user', id: c.ids.hire }, details: { from: 'member', to: 'admin' } }],
  },
  {
    name: 'an edit that changes no role writes nothing',
    method: 'PATCH',
    path: (c) => `/v1/users/${c.ids.hire}`,
    body: () => ({ name: 'New Hire Jr' }),
    status: 200,
    entries: () => [],
  },
  {
    name: 'agent.created',
    method: 'POST',
    path: () => '/v1/users',
    body: (c) => ({ kind: 'agent', name: 'Robo', agent: { owner: c.owner.id, powers: ['local_access'] } }),
    status: 201,
    after: (c, body) => (c.ids.agent = body.user.id),
    entries: (c, body) => [
      { action: 'agent.created', target: { type: 'agent', id: body.user.id, name: 'Robo' }, details: { owner: c.owner.id, powers: ['local_access'] } },
    ],
  },
  {
    name: 'agent.updated names the fields that changed',
    method: 'PATCH',
    path: (c) => `/v1/users/${c.ids.agent}`,
    body: () => ({ name: 'Robo 2', agent: { powers: ['local_access', 'auto_start'], wake_url: 'https://93.184.215.14/wake?key=abc' } }),
    status: 200,
    entries: (c) => [
      { action: 'agent.updated', target: { type: 'agent', id: c.ids.agent, name: 'Robo 2' }, details: { changed: ['name', 'wake_url', 'powers'] } },
    ],
  },
  {
    name: 'board.member_added: the user, on the board',
    method: 'POST',
    path: (c) => `/v1/boards/${c.board.id}/members`,
    body: (c) => ({ user: c.person.id }),
    status: 201,
    entries: (c) => [
      {
        action: 'board.member_added',
        target: { type: 'user', id: c.person.id, name: 'Pat Person' },
        board: c.board.id,
        details: { role: 'member', board_name: 'Launch' },
      },
    ],
  },
  {
    name: 'board.member_role_changed',
    method: 'PATCH',
    path: (c) => `/v1/boards/${c.board.id}/members/${c.person.id}`,
    body: () => ({ role: 'admin' }),
    status: 200,
    entries: (c) => [{ action: 'board.member_role_changed', target: { id: c.person.id }, board: c.board.id, details: { from: 'member', to: 'admin' } }],
  },
  {
    name: 'board.member_removed',
    method: 'DELETE',
    path: (c) => `/v1/boards/${c.board.id}/members/${c.person.id}`,
    status: 204,
    entries: (c) => [{ action: 'board.member_removed', target: { id: c.person.id }, board: c.board.id, details: { role: 'admin', left: false } }],
  },
  {
    name: 'board.trashed',
    method: 'DELETE',
    path: (c) => `/v1/boards/${c.side.id}`,
    status: 204,
    entries: (c) => [{ action: 'board.trashed', target: { type: 'board', id: c.side.id, name: 'Side' }, board: c.side.id }],
  },
  {
    name: 'board.restored',
    method: 'POST',
    path: (c) => `/v1/boards/${c.side.id}/restore`,
    status: 200,
    entries: (c) => [{ action: 'board.restored', target: { id: c.side.id }, board: c.side.id }],
  },
  {
    name: 'board.deleted (for good, at once)',
    method: 'DELETE',
    path: (c) => `/v1/boards/${c.gone.id}?permanent=true`,
    status: 204,
    entries: (c) => [{ action: 'board.deleted', actor: owner(c), target: { id: c.gone.id, name: 'Gone' }, board: c.gone.id, details: { key_prefix: 'GON' } }],
  },
  {
    name: 'webhook.created: events, boards, host, whether it signs; no secret, password or path',
    method: 'POST',
    path: () => '/v1/webhooks',
    token: (c) => c.tokens.admin.write,
    body: (c) => ({
      name: 'Ops',
      url: `${c.receiver.url}/status/500?token=${SECRETS.bearer}`,
      events: ['card.*'],
      boards: [],
      generate_secret: true,
      auth: { type: 'basic', username: 'ops', password: SECRETS.basicPassword },
    }),
    status: 201,
    after: (c, body) => {
      made.push(body.secret)
      c.ids.webhook = body.webhook.id
    },
    entries: (c, body) => [
      {
        action: 'webhook.created',
        actor: admin(c),
        target: { type: 'webhook', id: body.webhook.id, name: 'Ops' },
        details: { events: ['card.*'], boards: 'all', host: new URL(c.receiver.url).host, has_secret: true, auth_type: 'basic', active: true },
      },
    ],
  },
  {
    name: 'webhook.updated names what the edit sent',
    method: 'PATCH',
    path: (c) => `/v1/webhooks/${c.ids.webhook}`,
    body: () => ({ name: 'Ops 2', secret: SECRETS.webhook, auth: { type: 'bearer', token: SECRETS.bearer } }),
    status: 200,
    entries: (c) => [{ action: 'webhook.updated', target: { id: c.ids.webhook, name: 'Ops 2' }, details: { changed: ['name', 'secret', 'auth'] } }],
  },
  {
    name: 'webhook.deleted',
    method: 'DELETE',
    path: (c) => `/v1/webhooks/${c.ids.webhook}`,
    status: 204,
    entries: (c) => [{ action: 'webhook.deleted', target: { type: 'webhook', id: c.ids.webhook, name: 'Ops 2' } }],
  },
  {
    name: 'incoming_webhook.created: no path, no credential',
    method: 'POST',
    path: () => '/v1/webhooks/incoming',
    body: () => ({ name: 'CI', auth: { type: 'header', header_name: 'X-Api-Key', header_value: SECRETS.incoming } }),
    status: 201,
    after: (c, body) => {
      made.push(new URL(body.incoming_webhook.url).pathname.split('/').pop()!)
      c.ids.incoming = body.incoming_webhook.id
    },
    entries: (c, body) => [
      {
        action: 'incoming_webhook.created',
        target: { type: 'incoming_webhook', id: body.incoming_webhook.id, name: 'CI' },
        details: { auth_type: 'header', boards: 'all' },
      },
    ],
  },
  {
    name: 'incoming_webhook.updated: a new path (regenerate) is named, not shown',
    method: 'POST',
    path: (c) => `/v1/webhooks/incoming/${c.ids.incoming}/regenerate`,
    status: 200,
    after: (c, body) => made.push(new URL(body.incoming_webhook.url).pathname.split('/').pop()!),
    entries: (c) => [{ action: 'incoming_webhook.updated', target: { id: c.ids.incoming }, details: { changed: ['path'], regenerated: true } }],
  },
  {
    name: 'signing_secret.created',
    method: 'POST',
    path: () => '/v1/signing-secrets',
    token: (c) => c.tokens.admin.write,
    body: () => ({ name: 'Runner', value: SECRETS.signing }),
    status: 201,
    after: (c, body) => (c.ids.secret = body.signing_secret.id),
    entries: (c, body) => [
      { action: 'signing_secret.created', actor: admin(c), target: { type: 'signing_secret', id: body.signing_secret.id, name: 'Runner' } },
    ],
  },
  {
    name: 'signing_secret.updated (a new value, by name only)',
    method: 'PUT',
    path: (c) => `/v1/signing-secrets/${c.ids.secret}`,
    body: () => ({ value: SECRETS.signingNew }),
    status: 200,
    entries: (c) => [{ action: 'signing_secret.updated', target: { id: c.ids.secret }, details: { changed: ['value'] } }],
  },
  {
    name: 'a member may not manage signing secrets: 403 and no entry',
    method: 'POST',
    path: () => '/v1/signing-secrets',
    token: (c) => c.tokens.member.write,
    body: () => ({ name: 'Mine', value: 'member-secret-0123456789' }),
    status: 403,
    entries: () => [],
  },
  {
    name: 'automation.created: trigger and step types, on its board; no step contents',
    method: 'POST',
    path: () => '/v1/automations',
    body: (c) => ({
      name: 'Ping',
      board: c.board.id,
      trigger: { type: 'incoming_webhook', endpoint: c.ids.incoming },
      steps: [
        {
          type: 'http_request',
          method: 'POST',
          url: 'https://93.184.215.14/hook',
          headers: { 'X-Key': SECRETS.automationHeader },
          signing_secret: c.ids.secret,
        },
      ],
    }),
    status: 201,
    after: (c, body) => (c.ids.automation = body.automation.id),
    entries: (c, body) => [
      {
        action: 'automation.created',
        target: { type: 'automation', id: body.automation.id, name: 'Ping' },
        board: c.board.id,
        details: { trigger: 'incoming_webhook', steps: ['http_request'], signing_secrets: [c.ids.secret] },
      },
    ],
  },
  {
    name: 'automation.updated',
    method: 'PATCH',
    path: (c) => `/v1/automations/${c.ids.automation}`,
    body: () => ({ active: false }),
    status: 200,
    entries: (c) => [{ action: 'automation.updated', target: { id: c.ids.automation }, board: c.board.id, details: { changed: ['active'], active: false } }],
  },
  {
    name: 'automation.deleted',
    method: 'DELETE',
    path: (c) => `/v1/automations/${c.ids.automation}`,
    status: 204,
    entries: (c) => [{ action: 'automation.deleted', target: { id: c.ids.automation, name: 'Ping' }, board: c.board.id }],
  },
  {
    name: 'signing_secret.deleted (no automation uses it now)',
    method: 'DELETE',
    path: (c) => `/v1/signing-secrets/${c.ids.secret}`,
    status: 204,
    entries: (c) => [{ action: 'signing_secret.deleted', target: { id: c.ids.secret, name: 'Runner' } }],
  },
  {
    name: 'incoming_webhook.deleted',
    method: 'DELETE',
    path: (c) => `/v1/webhooks/incoming/${c.ids.incoming}`,
    status: 204,
    entries: (c) => [{ action: 'incoming_webhook.deleted', target: { id: c.ids.incoming, name: 'CI' } }],
  },
  {
    name: 'workspace.exported (the export route)',
    method: 'POST',
    path: () => '/v1/actions/export-workspace',
    status: 200,
    after: (c, body) => assert.ok(Array.isArray(body.audit_log) && body.audit_log.length > 10, 'an export carries the log'),
    entries: (c) => [{ action: 'workspace.exported', actor: owner(c), target: { type: 'workspace', id: null, name: null }, details: { via: 'api' } }],
  },
])

test('the list: owners and admins only (members 403, read tokens may), newest first, filter, sort and expand', async () => {
  const c = await ready
  const get = (query: string, token = c.tokens.admin.read) => c.t.req('GET', `/v1/audit${query}`, { token })
  for (const token of [c.tokens.member.read, c.tokens.member.write, c.tokens.outsider.read]) {
    const r = await get('', token)
    assert.equal(r.status, 403, r.text)
    assertErrorShape(r.body)
  }
  assert.equal((await c.t.req('GET', `/v1/audit/${[...(await auditIds(c))][0]}`, { token: c.tokens.member.read })).status, 403)
  assert.equal((await get('/nope')).status, 404)

  const all = await get('?per_page=500')
  assert.equal(all.status, 200, all.text)
  const ids = all.body.items.map((e: { id: string }) => e.id)
  assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first (ids are time-ordered; the fake clock stands still)')
  assert.equal(all.body.items[0].action, 'workspace.exported')

  const members = await get(`?filter=${encodeURIComponent('action ~ "board.member_"')}&sort=created`)
  assert.deepEqual(
    members.body.items.map((e: { action: string }) => e.action),
    // The seed added the admin and the member (made with the template, before the log's first test row).
    [...Array(members.body.items.length - 3).fill('board.member_added'), 'board.member_added', 'board.member_role_changed', 'board.member_removed'],
  )
  const byActor = await get(`?filter=${encodeURIComponent(`actor = "${c.admin.id}" && actor_type = "user"`)}`)
  assert.deepEqual(new Set(byActor.body.items.map((e: { actor: { id: string } }) => e.actor.id)), new Set([c.admin.id]))
  assert.ok(byActor.body.items.some((e: { action: string }) => e.action === 'signing_secret.created'))
  const byTarget = await get(`?filter=${encodeURIComponent(`target = "${c.side.id}"`)}&expand=board`)
  assert.deepEqual(
    byTarget.body.items.map((e: any) => [e.action, e.expand.board.name]),
    [
      ['board.restored', 'Side'],
      ['board.trashed', 'Side'],
    ],
  )
  const deleted = await get(`?filter=${encodeURIComponent('action = "board.deleted"')}&expand=board`)
  assert.equal(deleted.body.items.length, 1)
  assert.deepEqual(deleted.body.items[0].expand, {}, 'a board deleted for good expands to nothing')
  // The fixture's spare token (made and revoked) and the admin's.
  assert.equal((await get(`?filter=${encodeURIComponent('created >= "2026-11-21" && target_type = "token"')}`)).body.totalItems, 3)
  assert.equal((await get(`?filter=${encodeURIComponent('created < "2026-11-21"')}`)).body.totalItems, 0)
  for (const bad of ['?filter=nope%3D1', '?filter=actor_type%3D%22robot%22', '?sort=secret', '?expand=cards', '?page=0', '?per_page=501']) {
    const r = await get(bad)
    assert.equal(r.status, 400, `${bad}: ${r.text}`)
    assertErrorShape(r.body)
  }
  // Append-only: no route writes or deletes an entry.
  for (const method of ['POST', 'PATCH', 'DELETE', 'PUT'])
    assert.equal((await c.t.req(method, `/v1/audit/${ids[0]}`, { token: c.tokens.owner.full })).status, 405)
  assert.equal((await c.t.req('POST', '/v1/audit', { token: c.tokens.owner.full, body: {} })).status, 405)
})

test('audit.entry goes to owners’ and admins’ subscriptions only, and no entry, event or delivery holds a secret', async () => {
  const c = await ready
  // An admin's subscription to the log; the admin is then made a member: what was queued for it is not sent.
  const boss = await c.t.user('admin', 'Boss')
  const bossSub = (await createSub(c, await c.t.token(boss.id, 'write'), { url: `${c.receiver.url}/ok?boss`, events: ['audit.entry'], boards: [] })).webhook
  assert.equal((await c.t.req('PATCH', `/v1/users/${boss.id}`, { token: c.tokens.owner.full, body: { role: 'member' } })).status, 200)
  while ((await c.scheduler.runOnce()) > 0);
  assert.equal(c.receiver.hits.filter((h) => h.path.endsWith('?boss')).length, 0)
  const bossLogs = (await c.t.req('GET', `/v1/webhooks/${bossSub.id}/logs`, { token: c.tokens.owner.read })).body.items
  assert.deepEqual(
    bossLogs.map((l: { outcome: string; error: string }) => [l.outcome, l.error]),
    [['dropped', 'workspace-wide events go to subscriptions of owners and admins only; not sent']],
  )
  const toOwner = c.receiver.hits.filter((h) => h.path.endsWith('?owner'))
  const toMember = c.receiver.hits.filter((h) => h.path.endsWith('?member'))
  const entries = await dbAll<{ id: string }>(c.t.deps.db, 'SELECT id FROM audit_log')
  assert.ok(toOwner.length >= 25, `the owner's subscription got the entries (${toOwner.length})`)
  assert.ok(
    toOwner.every((h) => h.json.event === 'audit.entry' && entries.some((e) => e.id === h.json.data.id)),
    'each delivery is an entry of the log',
  )
  assert.ok(toMember.length > 0, "the member's subscription got the board's events")
  assert.ok(!toMember.some((h) => h.json.event === 'audit.entry'), "…but not the log's, although it takes every event")

  const stored = [
    ...(await dbAll(c.t.deps.db, 'SELECT * FROM audit_log')),
    ...(await dbAll(c.t.deps.db, "SELECT * FROM events WHERE name = 'audit.entry'")),
    ...(await dbAll(c.t.deps.db, "SELECT body FROM outbox WHERE event = 'audit.entry'")),
  ]
  const text = `${JSON.stringify(stored)}\n${toOwner.map((h) => h.body).join('\n')}`
  assert.equal(made.length, 5, 'the values taskd made were collected (two token values, a generated secret, two hook paths)')
  for (const secret of [...Object.values(SECRETS), ...made]) assert.ok(!text.includes(secret), `no entry holds ${secret.slice(0, 12)}…`)
})

test(
  'the command line: token create and revoke, user create, export, import and restore are logged as cli',
  { skip: testDialect !== 'sqlite' && 'SQLite files' },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-audit-cli-'))
    const db = path.join(dir, 'taskd.db')
    const cli = async (...args: string[]) => {
      const r = await runCli([...args, '--db', db])
      assert.equal(r.status, 0, r.stderr)
      return r.stdout.trim()
    }
    const entriesOf = (file: string) => {
      const raw = new Database(file, { readonly: true })
      try {
        return raw.prepare('SELECT action, actor_type, actor_id, target_type, target_name, details, request_id FROM audit_log ORDER BY id').all() as Record<
          string,
          string
        >[]
      } finally {
        raw.close()
      }
    }
    try {
      await cli('user', 'create', '--email', 'ann@example.test', '--name', 'Ann', '--role', 'owner')
      const value = await cli('token', 'create', '--user', 'ann@example.test', '--name', 'shell', '--permission', 'full')
      const id = (await cli('token', 'list')).split('\n')[1].split(/\s+/)[0]
      await cli('token', 'revoke', id)
      await cli('export', '--out', path.join(dir, 'export.json'))
      const entries = entriesOf(db)
      assert.deepEqual(
        entries.map((e) => [e.action, e.actor_type, e.actor_id, e.request_id]),
        ['user.created', 'token.created', 'token.revoked', 'workspace.exported'].map((a) => [a, 'cli', null, null]),
      )
      assert.equal(entries[1].target_name, 'shell')
      assert.deepEqual(JSON.parse(entries[1].details), {
        permission: 'full',
        holder: { id: JSON.parse(entries[1].details).holder.id, name: 'Ann' },
        prefix: value.slice(0, 7),
        expires_at: null,
      })
      assert.ok(!JSON.stringify(entries).includes(value), 'never the token value')
      const events = new Database(db, { readonly: true })
      try {
        assert.equal((events.prepare("SELECT COUNT(*) AS n FROM events WHERE name = 'audit.entry'").get() as { n: number }).n, 4, 'each is also the event')
      } finally {
        events.close()
      }

      // An import carries the log, and adds its own entry after it.
      const copy = path.join(dir, 'copy.db')
      const imported = await runCli(['import', path.join(dir, 'export.json'), '--db', copy])
      assert.equal(imported.status, 0, imported.stderr)
      assert.deepEqual(
        entriesOf(copy).map((e) => e.action),
        ['user.created', 'token.created', 'token.revoked', 'workspace.imported'],
      )
      // A restore writes its entry into the restored database.
      await cli('backup', path.join(dir, 'backup.db'))
      await cli('token', 'create', '--user', 'ann@example.test', '--name', 'after the backup')
      await cli('restore', path.join(dir, 'backup.db'))
      assert.deepEqual(
        entriesOf(db).map((e) => e.action),
        ['user.created', 'token.created', 'token.revoked', 'workspace.exported', 'workspace.restored'],
        'the backup’s log, and the restore',
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)

test('retention: the housekeeping deletes entries older than TASKD_AUDIT_RETENTION_DAYS by the injected clock, and keeps the rest', async () => {
  const c = await ready
  const start = c.t.clock.t
  const count = async () => (await dbAll(c.t.deps.db, 'SELECT id FROM audit_log')).length
  try {
    const old = await count()
    assert.equal(c.t.deps.config.auditRetentionDays, 365)
    c.t.clock.advance(365 * 86_400_000)
    const made = await c.t.req('POST', '/v1/tokens', { token: c.tokens.owner.write, body: { name: 'a year on', permission: 'read' } })
    assert.equal(made.status, 201)
    const failures: unknown[] = []
    const housekeeping = new Housekeeping(c.t.deps, (msg, err) => failures.push([msg, err]))
    await housekeeping.runOnce()
    assert.equal(await count(), old + 1, 'exactly 365 days old: kept')
    c.t.clock.advance(1)
    await housekeeping.runOnce()
    await housekeeping.stop()
    assert.deepEqual(failures, [])
    const left = (await c.t.req('GET', '/v1/audit', { token: c.tokens.owner.read })).body.items
    assert.deepEqual(
      left.map((e: { action: string; target: { name: string } }) => [e.action, e.target.name]),
      [['token.created', 'a year on']],
    )
  } finally {
    c.t.clock.t = start
  }
})
