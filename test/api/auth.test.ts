// Authentication: bad tokens, expiry and revocation at once, last_used_at, token routes.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp, startTestApp } from '../helpers/app.js'
import { countWrites, dbGet } from '../helpers/db.js'
import { assertErrorShape, runScenarios } from '../helpers/scenarios.js'
import { sha256Hex } from '../../src/ids.js'

runScenarios('401', seededApp, [
  { name: 'no header', method: 'GET', path: '/v1/users/me', status: 401, expect: { error: { code: 'unauthorized' } } },
  { name: 'unknown token', method: 'GET', path: '/v1/users/me', token: () => `tt_${'a'.repeat(43)}`, status: 401 },
  { name: 'malformed token', method: 'GET', path: '/v1/users/me', token: () => 'abc', status: 401 },
  { name: 'basic scheme', method: 'GET', path: '/v1/boards', headers: { authorization: 'Basic dXNlcjpwYXNz' }, status: 401 },
  { name: 'bad token on a write', method: 'POST', path: '/v1/boards', token: () => `tt_${'b'.repeat(43)}`, body: { name: 'x' }, status: 401 },
])

test('401 carries WWW-Authenticate: Bearer', async () => {
  const t = await startTestApp()
  try {
    const r = await t.req('GET', '/v1/users/me')
    assert.equal(r.headers.get('www-authenticate'), 'Bearer')
  } finally {
    await t.close()
  }
})

test('tokens are stored as SHA-256 hashes only; the value is shown once', async () => {
  const { t, tokens } = await seededApp()
  try {
    const r = await t.req('POST', '/v1/tokens', { token: tokens.member.write, body: { name: 'ci', permission: 'read' } })
    assert.equal(r.status, 201)
    assert.match(r.body.value, /^tt_[0-9A-Za-z]{40,}$/)
    assert.equal(r.body.token.prefix, r.body.value.slice(0, 7))
    const row = (await dbGet(t.deps.db, 'SELECT * FROM tokens WHERE id = ?', r.body.token.id))!
    assert.equal(row.hash, sha256Hex(r.body.value))
    assert.ok(!JSON.stringify(row).includes(r.body.value))
    const list = await t.req('GET', '/v1/tokens', { token: tokens.member.write })
    assert.ok(!list.text.includes(r.body.value))
    assert.equal((await t.req('GET', '/v1/users/me', { token: r.body.value })).status, 200)
  } finally {
    await t.close()
  }
})

test('expiry takes effect at once, by the injected clock', async () => {
  const { t, tokens } = await seededApp()
  try {
    const r = await t.req('POST', '/v1/tokens', { token: tokens.member.write, body: { name: 'short', expires_at: '2026-11-21T13:00:00Z' } })
    assert.equal(r.status, 201)
    assert.equal((await t.req('GET', '/v1/users/me', { token: r.body.value })).status, 200)
    t.clock.advance(60 * 60 * 1000)
    const after = await t.req('GET', '/v1/users/me', { token: r.body.value })
    assert.equal(after.status, 401)
    assertErrorShape(after.body)
  } finally {
    await t.close()
  }
})

test('a bare expiry date means the end of that day, UTC; past dates are refused', async () => {
  const { t, tokens } = await seededApp()
  try {
    const r = await t.req('POST', '/v1/tokens', { token: tokens.member.write, body: { name: 'day', expires_at: '2026-11-22' } })
    assert.equal(r.body.token.expires_at, '2026-11-22T23:59:59.999Z')
    const past = await t.req('POST', '/v1/tokens', { token: tokens.member.write, body: { name: 'old', expires_at: '2020-01-01' } })
    assert.equal(past.status, 422)
    assert.equal(past.body.error.details[0].path, 'expires_at')
  } finally {
    await t.close()
  }
})

test('revocation takes effect at once; members revoke only their own, admins any', async () => {
  const { t, tokens } = await seededApp()
  try {
    const mine = await t.req('POST', '/v1/tokens', { token: tokens.member.write, body: { name: 'm' } })
    const other = await t.req('POST', '/v1/tokens', { token: tokens.outsider.write, body: { name: 'o' } })
    assert.equal((await t.req('DELETE', `/v1/tokens/${other.body.token.id}`, { token: tokens.member.write })).status, 404)
    assert.equal((await t.req('DELETE', `/v1/tokens/${mine.body.token.id}`, { token: tokens.member.write })).status, 204)
    assert.equal((await t.req('GET', '/v1/users/me', { token: mine.body.value })).status, 401)
    assert.equal((await t.req('DELETE', `/v1/tokens/${other.body.token.id}`, { token: tokens.admin.write })).status, 204)
    assert.equal((await t.req('GET', '/v1/users/me', { token: other.body.value })).status, 401)
  } finally {
    await t.close()
  }
})

test('token list: members see their own, owners and admins every token with owner and last use', async () => {
  const { t, tokens, member } = await seededApp()
  try {
    await t.req('GET', '/v1/users/me', { token: tokens.member.read })
    const own = await t.req('GET', '/v1/tokens?per_page=100', { token: tokens.member.read })
    assert.equal(own.status, 200)
    assert.ok(own.body.items.length >= 2)
    assert.ok(own.body.items.every((i: any) => i.owner.id === member.id))
    const all = await t.req('GET', '/v1/tokens?per_page=100', { token: tokens.admin.read })
    assert.equal(all.body.totalItems, all.body.items.length)
    assert.ok(all.body.items.length > own.body.items.length)
    const used = all.body.items.find((i: any) => i.owner.id === member.id && i.permission === 'read')
    assert.equal(used.last_used_at, new Date(t.clock.now()).toISOString())
    assert.deepEqual(Object.keys(used).sort(), ['created', 'created_at', 'expires_at', 'id', 'last_used_at', 'name', 'owner', 'permission', 'prefix'])
  } finally {
    await t.close()
  }
})

test('last_used_at is throttled: a burst of reads writes it once', async () => {
  const { t, tokens } = await seededApp()
  try {
    await t.req('GET', '/v1/users/me', { token: tokens.member.read })
    const { id } = (await dbGet<{ id: string }>(t.deps.db, 'SELECT id FROM tokens WHERE hash = ?', sha256Hex(tokens.member.read)))!
    const writes = await countWrites(t.deps.db, 'tokens', id)
    for (let i = 0; i < 20; i++) await t.req('GET', '/v1/users/me', { token: tokens.member.read })
    assert.equal(await writes(), 0, 'the burst writes nothing')
    t.clock.advance(61_000)
    await t.req('GET', '/v1/users/me', { token: tokens.member.read })
    assert.equal(await writes(), 1, 'a read a minute later writes last_used_at once')
  } finally {
    await t.close()
  }
})

test('users sort by email ignoring case, and find each other by email in any case, on either database', async () => {
  const { t, tokens } = await seededApp()
  try {
    for (const email of ['B-sort@x.test', 'a-sort@x.test', 'c-sort@x.test']) {
      const r = await t.req('POST', '/v1/users', { token: tokens.owner.full, body: { email, name: email, role: 'member' } })
      assert.equal(r.status, 201, r.text)
    }
    const page = await t.req('GET', `/v1/users?sort=email&per_page=100&filter=${encodeURIComponent('email ~ "-sort@"')}`, { token: tokens.owner.read })
    assert.deepEqual(
      page.body.items.map((u: { email: string }) => u.email),
      ['a-sort@x.test', 'B-sort@x.test', 'c-sort@x.test'], // bytewise, B would come first
    )
    const same = await t.req('POST', '/v1/users', { token: tokens.owner.full, body: { email: 'A-SORT@x.test', name: 'dup', role: 'member' } })
    assert.ok(same.status === 409 || same.status === 422, `a second user with the same email in another case is refused: ${same.status}`)
    const found = await t.req('GET', `/v1/users?filter=${encodeURIComponent('email = "A-sort@X.TEST"')}`, { token: tokens.owner.read })
    assert.deepEqual(
      found.body.items.map((u: { email: string }) => u.email),
      ['a-sort@x.test'],
    )
  } finally {
    await t.close()
  }
})

test('a user demoted from admin keeps no Full Access token: it becomes a write token, and the token list says so', async () => {
  const { t, tokens, admin } = await seededApp()
  try {
    const permissions = async () =>
      ((await t.req('GET', '/v1/tokens', { token: tokens.owner.full })).body.items as { owner: { id: string }; permission: string }[])
        .filter((i) => i.owner.id === admin.id)
        .map((i) => i.permission)
        .sort()
    assert.deepEqual(await permissions(), ['full', 'read', 'write'])
    const demoted = await t.req('PATCH', `/v1/users/${admin.id}`, { token: tokens.owner.full, body: { role: 'member' } })
    assert.equal(demoted.status, 200, demoted.text)
    assert.deepEqual(await permissions(), ['read', 'write', 'write'])
    // The former full token still writes, and no longer reaches what needs Full Access.
    assert.equal((await t.req('POST', '/v1/boards', { token: tokens.admin.full, body: { name: 'Still writes' } })).status, 201)
    assert.equal((await t.req('POST', '/v1/actions/export-workspace', { token: tokens.admin.full })).status, 403)
    // Promoted again, the user asks for a new full token; the old ones stay write.
    assert.equal((await t.req('PATCH', `/v1/users/${admin.id}`, { token: tokens.owner.full, body: { role: 'admin' } })).status, 200)
    assert.deepEqual(await permissions(), ['read', 'write', 'write'])
  } finally {
    await t.close()
  }
})
