// Sign-in for people through HTTP: passwords (first one from a login link's session, changes with the current one, the
// length rules), POST /v1/sessions (one 401 for every wrong email or password), the cookie's attributes (Secure only over
// HTTPS), a new session at each sign-in (a planted cookie is worth nothing), the cookie beside Bearer tokens (which win),
// CSRF on every cookie write, sign-out, revocation, a password change ending the other sessions, login links (single use,
// expiry by the injected clock, a GET does not use one), the sign-in rate limits (injected clock), `taskd user
// set-password` and `login-link`, and no password, cookie, CSRF or link token in any response, event, audit entry or row.
// One app for the file: each test signs in its own users from its own address (X-Forwarded-For, loopback trusted), so
// their sessions and the rate limits do not meet.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import path from 'node:path'
import { after, before, test } from 'node:test'
import type { Request } from 'express'
import type { Role } from '../../src/access/roles.js'
import { loadConfig } from '../../src/config.js'
import type { UsersTable } from '../../src/db/types.js'
import type { Deps } from '../../src/deps.js'
import { sha256Hex } from '../../src/ids.js'
import { issueLoginLinkIn, writePasswordIn } from '../../src/resources/sessions/accounts.js'
import { onSigninAudit, type SigninAuditEntry } from '../../src/resources/sessions/audit.js'
import { reachedOverHttps } from '../../src/resources/sessions/cookie.js'
import { hashPassword, verifyPassword } from '../../src/resources/sessions/password.js'
import { insertNewUser } from '../../src/resources/users/setup.js'
import { seededApp, type Reply } from '../helpers/app.js'
import { dbAll, dbGet } from '../helpers/db.js'
import { assertErrorShape } from '../helpers/scenarios.js'
import { cleanEnv, ROOT } from '../helpers/serve.js'

type Fixture = Awaited<ReturnType<typeof seededApp>>
let s: Fixture
/** Every audit entry the file causes. */
const audit: SigninAuditEntry[] = []
/** Every secret the file used or was given: none may show up where it must not. */
const passwords = new Set<string>()
const linkTokens = new Set<string>()
const cookieValues = new Set<string>()
const csrfTokens = new Set<string>()

const PASSWORD = 'correct horse battery staple'
let passwordHash: string

before(async () => {
  s = await seededApp({ trustProxy: 'loopback' })
  onSigninAudit((e) => audit.push(e))
  passwords.add(PASSWORD)
  passwordHash = await hashPassword(PASSWORD)
})
after(async () => {
  await s?.t.close()
})

let addresses = 0
/** An address of its own for each browser, so the per-address limit of one test never meets another's. */
const newAddress = () => `198.51.100.${++addresses}`

interface Browser {
  address: string
  cookie?: string
  csrf?: string
  session?: string
}

/** A person of the workspace (with PASSWORD as their password when `withPassword`). */
async function person(opts: { role?: Role; withPassword?: boolean } = {}): Promise<UsersTable> {
  const made = await s.t.user(opts.role ?? 'member')
  const user = (await dbGet<UsersTable>(s.t.deps.db, 'SELECT * FROM users WHERE id = ?', made.id))!
  if (opts.withPassword) await s.t.deps.db.tx((tx) => writePasswordIn(s.t.deps, tx, user, passwordHash, { actor: null }))
  return user
}

/** A login link's token for a person, as `taskd user login-link` makes it. */
async function linkFor(user: UsersTable): Promise<string> {
  const { url } = await s.t.deps.db.tx((tx) => issueLoginLinkIn(s.t.deps, tx, user, { minutes: 15, baseUrl: 'http://taskd.test' }))
  assert.match(url, /^http:\/\/taskd\.test\/login\/tl_[A-Za-z0-9_-]{43}$/)
  const token = url.slice(url.lastIndexOf('/') + 1)
  linkTokens.add(token)
  return token
}

interface SetCookie {
  name: string
  value: string
  attributes: Map<string, string>
}

/** The Set-Cookie headers of a reply, parsed. */
function setCookies(r: Reply): SetCookie[] {
  return r.headers.getSetCookie().map((line) => {
    const [pair, ...attrs] = line.split(';').map((p) => p.trim())
    const eq = pair.indexOf('=')
    return {
      name: pair.slice(0, eq),
      value: pair.slice(eq + 1),
      attributes: new Map(attrs.map((a) => [a.split('=')[0].toLowerCase(), a.split('=')[1] ?? ''])),
    }
  })
}
const lastCookie = (r: Reply) => setCookies(r).at(-1)

/** No secret in a reply: never a password or link token; a cookie value only in Set-Cookie; a CSRF token only in a sign-in's body. */
function assertNoLeak(r: Reply, allowCsrf: boolean): void {
  const text = r.text
  for (const p of passwords) assert.ok(!text.includes(p), 'no password in a response')
  for (const l of linkTokens) assert.ok(!text.includes(l) && !text.includes(sha256Hex(l)), 'no link token in a response')
  for (const c of cookieValues) assert.ok(!text.includes(c) && !text.includes(sha256Hex(c)), 'no cookie value in a body')
  if (!allowCsrf) for (const c of csrfTokens) assert.ok(!text.includes(c), 'no CSRF token outside the sign-in answers')
  for (const [name, value] of r.headers) if (name !== 'set-cookie') for (const c of cookieValues) assert.ok(!value.includes(c), `no cookie value in ${name}`)
}

/** A request from a browser: its cookie, its CSRF token on writes (unless `csrf` says otherwise), its address. */
async function call(
  b: Browser | undefined,
  method: string,
  urlPath: string,
  opts: { body?: unknown; token?: string; csrf?: string | null; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { 'x-forwarded-for': b?.address ?? newAddress(), ...opts.headers }
  if (b?.cookie) headers.cookie = `taskd_session=${b.cookie}`
  const csrf = opts.csrf === undefined ? b?.csrf : opts.csrf
  if (csrf && method !== 'GET') headers['x-csrf-token'] = csrf
  const r = await s.t.req(method, urlPath, { body: opts.body, token: opts.token, headers })
  assertNoLeak(r, (r.status === 201 && urlPath === '/v1/sessions') || urlPath === '/v1/sessions/current')
  if (r.status >= 400) assertErrorShape(r.body)
  return r
}

/** Signs in (a password or a login link): the browser now holds the new cookie and CSRF token. */
async function signIn(b: Browser, body: { email?: string; password?: string; link_token?: string }, headers?: Record<string, string>): Promise<Reply> {
  if (body.password) passwords.add(body.password)
  const r = await call(b, 'POST', '/v1/sessions', { body, headers })
  if (r.status === 201) {
    const cookie = lastCookie(r)!
    assert.equal(cookie.name, 'taskd_session')
    cookieValues.add(cookie.value)
    csrfTokens.add(r.body.csrf_token)
    Object.assign(b, { cookie: cookie.value, csrf: r.body.csrf_token, session: r.body.session.id })
  }
  return r
}

/** A browser signed in as `user` through a login link (no password needed). */
async function browserOf(user: UsersTable): Promise<Browser> {
  const b: Browser = { address: newAddress() }
  const r = await signIn(b, { link_token: await linkFor(user) })
  assert.equal(r.status, 201, r.text)
  return b
}

const hasSession = async (b: Browser) => (await call({ ...b, csrf: undefined }, 'GET', '/v1/users/me')).status === 200

test('a first password: not with a token (403), yes from a login link’s session without current_password; the rules name password', async () => {
  const ann = await person()
  const token = await s.t.token(ann.id, 'write')
  const byToken = await call(undefined, 'PATCH', '/v1/users/me', { token, body: { password: 'a fine long passphrase' } })
  assert.equal(byToken.status, 403, byToken.text)
  assert.match(byToken.body.error.message, /login link|set-password/)

  const b = await browserOf(ann)
  const current = await call(b, 'GET', '/v1/sessions/current')
  assert.equal(current.status, 200)
  assert.deepEqual([current.body.session.via, current.body.password_set, current.body.csrf_token], ['link', false, b.csrf])

  for (const [password, reason] of [
    ['short one', /at least 10 characters/],
    ['ü'.repeat(501), /at most 1,000 bytes/],
  ] as const) {
    const r = await call(b, 'PATCH', '/v1/users/me', { body: { password } })
    assert.equal(r.status, 422, r.text)
    assert.deepEqual(
      r.body.error.details.map((d: { path: string }) => d.path),
      ['password'],
    )
    assert.match(r.body.error.details[0].message, reason)
  }
  const ten = 'ünïcödé 10' // ten characters, more bytes: characters count
  passwords.add(ten)
  const set = await call(b, 'PATCH', '/v1/users/me', { body: { password: ten, name: 'Ann' } })
  assert.equal(set.status, 200, set.text)
  assert.equal(set.body.user.name, 'Ann')
  assert.equal(Object.hasOwn(set.body.user, 'password'), false)
  const row = (await dbGet<{ hash: string }>(s.t.deps.db, 'SELECT hash FROM user_passwords WHERE user_id = ?', ann.id))!
  assert.match(row.hash, /^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/, 'a salted scrypt hash in PHC form')
  assert.ok(await verifyPassword(ten.normalize('NFD'), row.hash), 'the same password however it is composed')
  assert.equal((await call(b, 'GET', '/v1/sessions/current')).body.password_set, true)
  assert.ok(await hasSession(b), 'the session a password was set through goes on')

  // From now on a change needs the current password, whatever carries it.
  const again = 'another long passphrase'
  passwords.add(again)
  const missing = await call(b, 'PATCH', '/v1/users/me', { body: { password: again } })
  assert.equal(missing.status, 422)
  assert.equal(missing.body.error.details[0].path, 'current_password')
  const wrong = await call(b, 'PATCH', '/v1/users/me', { body: { password: again, current_password: 'not the password' } })
  assert.equal(wrong.status, 422)
  assert.deepEqual(wrong.body.error.details, [{ path: 'current_password', message: 'current_password is not your current password.' }])
  const byTokenNow = await call(undefined, 'PATCH', '/v1/users/me', { token, body: { password: again, current_password: ten } })
  assert.equal(byTokenNow.status, 200, 'with the current password a token may change it')
  assert.equal(await hasSession(b), false, 'a change through a token ends every session')
  assert.equal((await call(undefined, 'POST', '/v1/sessions', { body: { email: ann.email, password: ten } })).status, 401, 'the old password is gone')

  // Agents act with tokens: no password.
  const agent = await s.t.deps.db.tx(({ q }) =>
    insertNewUser(q, s.t.clock.now(), { email: 'agent-signin@agents.invalid', name: 'Bot', role: 'member', kind: 'agent' }),
  )
  const agentToken = await s.t.token(agent.id, 'write')
  const agentSet = await call(undefined, 'PATCH', '/v1/users/me', { token: agentToken, body: { password: 'a fine long passphrase' } })
  assert.equal(agentSet.status, 422)
  assert.equal(agentSet.body.error.details[0].path, 'password')
  await assert.rejects(linkFor(agent), /only people/, 'no login link for an agent')
})

test('sign-in: 201 with the session, its CSRF token and an HttpOnly, SameSite=Strict cookie that GET /v1/users/me takes; every wrong email or password is one 401', async () => {
  const bo = await person({ withPassword: true })
  const b: Browser = { address: newAddress() }
  const r = await signIn(b, { email: bo.email.toUpperCase(), password: PASSWORD }, { 'user-agent': 'TestBrowser/1.0' })
  assert.equal(r.status, 201, r.text)
  assert.equal(r.headers.get('cache-control'), 'no-store')
  assert.deepEqual(Object.keys(r.body).sort(), ['csrf_token', 'password_set', 'session'])
  assert.deepEqual(r.body.session, {
    id: b.session,
    user: { id: bo.id, name: bo.name },
    via: 'password',
    created: new Date(s.t.clock.now()).toISOString(),
    last_used: new Date(s.t.clock.now()).toISOString(),
    expires: r.body.session.expires,
    user_agent: 'TestBrowser/1.0',
    address: b.address,
    current: true,
  })
  assert.ok(Date.parse(r.body.session.expires) > s.t.clock.now() + 29 * 86_400_000, 'about 30 days ahead')
  const cookie = lastCookie(r)!
  assert.match(cookie.value, /^ts_[A-Za-z0-9_-]{43}$/)
  assert.deepEqual([...cookie.attributes.keys()].sort(), ['httponly', 'max-age', 'path', 'samesite'], 'no Secure over plain HTTP')
  assert.deepEqual([cookie.attributes.get('path'), cookie.attributes.get('samesite'), cookie.attributes.get('max-age')], ['/', 'Strict', String(30 * 86_400)])
  const stored = (await dbGet<{ hash: string }>(s.t.deps.db, 'SELECT hash FROM sessions WHERE id = ?', b.session))!
  assert.equal(stored.hash, sha256Hex(b.cookie!), 'only the hash of the value is stored')

  const me = await call(b, 'GET', '/v1/users/me')
  assert.equal(me.status, 200)
  assert.equal(me.body.user.id, bo.id)
  assert.equal(me.headers.get('cache-control'), 'private', 'no shared cache keeps an answer to a cookie')

  const wrongPassword = await call({ address: b.address }, 'POST', '/v1/sessions', { body: { email: bo.email, password: 'not the password' } })
  const unknownEmail = await call({ address: b.address }, 'POST', '/v1/sessions', { body: { email: 'nobody@example.test', password: PASSWORD } })
  const noPassword = await call({ address: b.address }, 'POST', '/v1/sessions', { body: { email: (await person()).email, password: PASSWORD } })
  for (const refused of [wrongPassword, unknownEmail, noPassword]) {
    assert.equal(refused.status, 401)
    assert.deepEqual(refused.body, { error: { code: 'unauthorized', message: 'Wrong email or password.' } })
    assert.deepEqual(refused.headers.getSetCookie(), [], 'no cookie for a refused sign-in')
  }
  const failed = audit.filter((e) => e.action === 'signin.failed' && e.address === b.address)
  assert.deepEqual(
    failed.map((e) => [e.reason, e.user?.id ?? null, e.email]),
    [
      ['wrong_credentials', bo.id, bo.email],
      ['wrong_credentials', null, 'nobody@example.test'],
      ['wrong_credentials', failed[2].user!.id, failed[2].email],
    ],
  )

  for (const [body, field] of [
    [{ email: bo.email }, 'password'],
    [{ password: PASSWORD }, 'email'],
    [{ email: bo.email, password: PASSWORD, link_token: 'tl_x' }, 'email'],
    [{ email: bo.email, password: 'x'.repeat(1001) }, 'password'],
    [{ email: bo.email, password: PASSWORD, remember: true }, 'remember'],
  ] as const) {
    const bad = await call({ address: newAddress() }, 'POST', '/v1/sessions', { body })
    assert.equal(bad.status, 422, bad.text)
    assert.ok(
      bad.body.error.details.some((d: { path: string }) => d.path === field),
      `${JSON.stringify(bad.body.error.details)} names ${field}`,
    )
  }
  const form = await s.t.req('POST', '/v1/sessions', {
    raw: `email=${encodeURIComponent(bo.email)}&password=x`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': newAddress() },
  })
  assert.equal(form.status, 415, 'an HTML form cannot sign in')
  const crossSite = await call({ address: newAddress() }, 'POST', '/v1/sessions', {
    body: { email: bo.email, password: PASSWORD },
    headers: { 'sec-fetch-site': 'cross-site' },
  })
  assert.equal(crossSite.status, 403)
  assert.equal(crossSite.body.error.code, 'csrf_failed')
})

test('the cookie is Secure when the browser came over HTTPS: a trusted proxy’s X-Forwarded-Proto, an https:// base URL; never a client’s own header', async () => {
  const bo = await person()
  const b: Browser = { address: newAddress() }
  const r = await signIn(b, { link_token: await linkFor(bo) }, { 'x-forwarded-proto': 'https' })
  assert.equal(r.status, 201)
  assert.ok(lastCookie(r)!.attributes.has('secure'), 'Secure behind the trusted proxy (loopback)')
  const signedOut = await call(b, 'DELETE', '/v1/sessions/current', { headers: { 'x-forwarded-proto': 'https' } })
  assert.equal(signedOut.status, 204)
  assert.ok(lastCookie(signedOut)!.attributes.has('secure'), 'the clearing cookie matches')

  // The rule itself, for connections the test cannot make: a proxy that is not trusted, a base URL with https.
  const deps = (overrides: Record<string, string>) => ({ config: loadConfig({ db: ':memory:', ...overrides }, {}) }) as unknown as Deps
  const req = (remoteAddress: string, headers: Record<string, string>) => ({ socket: { remoteAddress }, headers }) as unknown as Request
  const https = { 'x-forwarded-proto': 'https' }
  assert.equal(reachedOverHttps(deps({}), req('203.0.113.9', https)), false, 'a client’s own X-Forwarded-Proto is ignored')
  assert.equal(reachedOverHttps(deps({ trustProxy: '10.0.0.0/8' }), req('203.0.113.9', https)), false, 'not from the trusted proxy')
  assert.equal(reachedOverHttps(deps({ trustProxy: '10.0.0.0/8' }), req('10.1.2.3', https)), true)
  assert.equal(reachedOverHttps(deps({ trustProxy: '10.0.0.0/8' }), req('10.1.2.3', { 'x-forwarded-proto': 'http' })), false)
  assert.equal(reachedOverHttps(deps({ trustProxy: '10.0.0.0/8' }), req('10.1.2.3', { forwarded: 'for=1.2.3.4;proto=https' })), true)
  assert.equal(reachedOverHttps(deps({ baseUrl: 'https://tasks.example.com' }), req('127.0.0.1', {})), true, 'an https:// base URL')
  assert.equal(reachedOverHttps(deps({ baseUrl: 'http://tasks.example.com' }), req('127.0.0.1', {})), false)
})

test('each sign-in is a new session with a new cookie; a cookie held before it (even one planted) is worth nothing after', async () => {
  const cy = await person()
  const first = await browserOf(cy)
  const second: Browser = { address: first.address, cookie: first.cookie }
  const r = await signIn(second, { link_token: await linkFor(cy) })
  assert.equal(r.status, 201)
  assert.notEqual(second.session, first.session)
  assert.notEqual(second.cookie, first.cookie)
  assert.notEqual(second.csrf, first.csrf)
  const old = await call({ ...first, csrf: undefined }, 'GET', '/v1/users/me')
  assert.equal(old.status, 401, 'the session the browser held ended at the new sign-in')
  assert.equal(lastCookie(old)!.attributes.get('max-age'), '0', 'and its cookie is cleared')
  assert.ok(audit.some((e) => e.action === 'session.revoked' && e.reason === 'new_sign_in' && e.sessions?.includes(first.session!)))

  // Fixation: a value an attacker planted before sign-in is never the one sign-in gives.
  const planted = `ts_${'A'.repeat(43)}`
  cookieValues.add(planted)
  const victim: Browser = { address: newAddress(), cookie: planted }
  assert.equal((await call(victim, 'GET', '/v1/users/me')).status, 401)
  await signIn(victim, { link_token: await linkFor(cy) })
  assert.notEqual(victim.cookie, planted)
  assert.equal((await call({ address: victim.address, cookie: planted }, 'GET', '/v1/users/me')).status, 401)
  assert.equal((await call({ address: victim.address, cookie: 'not-a-session' }, 'GET', '/v1/users/me')).status, 401)
})

test('CSRF: a write with the cookie needs its session’s X-CSRF-Token (403 csrf_failed without, wrong, another session’s, or cross-site); GETs need none', async () => {
  const di = await person()
  const b = await browserOf(di)
  const other = await browserOf(await person())
  for (const [csrf, headers, why] of [
    [null, {}, 'no token'],
    ['x'.repeat(43), {}, 'a wrong token'],
    [other.csrf!, {}, 'another session’s token'],
    [b.csrf!, { 'sec-fetch-site': 'cross-site' }, 'a request another site made'],
  ] as const) {
    const r = await call(b, 'PATCH', '/v1/users/me', { body: { name: 'Mallory' }, csrf, headers })
    assert.equal(r.status, 403, `${why}: ${r.text}`)
    assert.equal(r.body.error.code, 'csrf_failed', why)
  }
  const board = await call(b, 'POST', '/v1/boards', { body: { name: 'Cookie board', key_prefix: 'CKB' }, csrf: null })
  assert.equal(board.status, 403)
  assert.equal((await call(b, 'GET', '/v1/users/me')).body.user.name, di.name, 'nothing was written')

  const ok = await call(b, 'PATCH', '/v1/users/me', { body: { name: 'Di' } })
  assert.equal(ok.status, 200, ok.text)
  const made = await call(b, 'POST', '/v1/boards', { body: { name: 'Cookie board', key_prefix: 'CKB' } })
  assert.equal(made.status, 201, made.text)
  assert.equal(made.body.board.created_by.id, di.id)
  const sameSite = await call(b, 'PATCH', '/v1/users/me', { body: { name: 'Di B' }, headers: { 'sec-fetch-site': 'same-origin' } })
  assert.equal(sameSite.status, 200)
  for (const path of ['/v1/users/me', '/v1/boards', `/v1/boards/${made.body.board.id}`, '/v1/sessions'])
    assert.equal((await call({ ...b, csrf: undefined }, 'GET', path)).status, 200, `GET ${path} needs no CSRF token`)
})

test('Bearer tokens work as before and win over the cookie; a member’s session writes, an owner’s reaches Full Access routes; MCP takes no cookie', async () => {
  const ed = await person()
  const b = await browserOf(ed)
  const { tokens } = s
  const readWins = await call(b, 'PATCH', '/v1/users/me', { token: tokens.member.read, body: { name: 'X' } })
  assert.equal(readWins.status, 403, 'the read token decides, not the cookie')
  assert.equal(readWins.body.error.code, 'forbidden')
  const badWins = await call(b, 'GET', '/v1/users/me', { token: `tt_${'z'.repeat(43)}` })
  assert.equal(badWins.status, 401, 'a refused token is not rescued by the cookie')
  const tokenUser = await call(b, 'GET', '/v1/users/me', { token: tokens.member.read })
  assert.equal(tokenUser.body.user.id, s.member.id, 'the token’s user, not the session’s')
  const noCsrfWithToken = await call({ ...b, csrf: undefined }, 'PATCH', '/v1/users/me', { token: tokens.member.write, body: { name: 'member 3' } })
  assert.equal(noCsrfWithToken.status, 200, 'a token needs no CSRF token, cookie or not')

  const full = await call(b, 'POST', '/v1/users', { body: { email: 'x-signin@example.test', name: 'X' } })
  assert.equal(full.status, 403, 'a member’s session is no Full Access')
  const owner = (await dbGet<UsersTable>(s.t.deps.db, 'SELECT * FROM users WHERE id = ?', s.owner.id))!
  const ob = await browserOf(owner)
  const created = await call(ob, 'POST', '/v1/users', { body: { email: 'made-by-session@example.test', name: 'Made' } })
  assert.equal(created.status, 201, 'an owner’s session is Full Access')
  const fullToken = await call(ob, 'POST', '/v1/tokens', { body: { name: 'from the browser', permission: 'full' } })
  assert.equal(fullToken.status, 201)

  const mcp = await s.t.req('POST', '/mcp', {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    headers: { cookie: `taskd_session=${ob.cookie}`, 'x-csrf-token': ob.csrf!, accept: 'application/json, text/event-stream' },
  })
  assert.equal(mcp.status, 401, 'MCP takes tokens only')
})

test('sign-out and revocation: DELETE /v1/sessions/current clears the cookie; your sessions are listed and revoked by id; another’s is 404', async () => {
  const fay = await person()
  const laptop = await browserOf(fay)
  const phone = await browserOf(fay)
  const list = await call(laptop, 'GET', '/v1/sessions')
  assert.equal(list.status, 200)
  assert.deepEqual(
    list.body.items.map((x: { id: string; current: boolean }) => [x.id, x.current]).sort(),
    [
      [laptop.session, true],
      [phone.session, false],
    ].sort(),
  )
  assert.equal(list.body.totalItems, 2)
  const filtered = await call(laptop, 'GET', `/v1/sessions?filter=${encodeURIComponent(`id = "${phone.session}"`)}&sort=created`)
  assert.deepEqual(
    filtered.body.items.map((x: { id: string }) => x.id),
    [phone.session],
  )
  assert.equal((await call(laptop, 'GET', '/v1/sessions?sort=hash')).status, 400)
  assert.equal((await call(laptop, 'GET', '/v1/sessions?filter=hash%20%3D%20%22x%22')).status, 400)
  assert.equal((await call(laptop, 'GET', '/v1/sessions?expand=user')).status, 400)
  assert.equal((await call(laptop, 'GET', `/v1/sessions/${phone.session}`)).body.session.current, false)

  const stranger = await browserOf(await person())
  assert.equal((await call(stranger, 'GET', `/v1/sessions/${phone.session}`)).status, 404)
  assert.equal((await call(stranger, 'DELETE', `/v1/sessions/${phone.session}`)).status, 404, 'another’s session is not yours to end')
  assert.equal((await call(undefined, 'DELETE', `/v1/sessions/${phone.session}`, { token: s.tokens.owner.full })).status, 404, 'not even an owner’s')
  assert.ok(await hasSession(phone))

  const revoked = await call(laptop, 'DELETE', `/v1/sessions/${phone.session}`)
  assert.equal(revoked.status, 204)
  assert.deepEqual(revoked.headers.getSetCookie(), [], 'the laptop keeps its cookie')
  assert.equal((await call(phone, 'GET', '/v1/users/me')).status, 401, 'the phone is signed out at once')

  const byToken = await call(undefined, 'DELETE', '/v1/sessions/current', { token: s.tokens.member.write })
  assert.equal(byToken.status, 404, 'a token has no current session')
  assert.equal((await call(undefined, 'GET', '/v1/sessions/current', { token: s.tokens.member.read })).status, 404)
  assert.equal((await call(laptop, 'DELETE', '/v1/sessions/current', { csrf: null })).status, 403, 'signing out is a write: CSRF too')
  const out = await call(laptop, 'DELETE', '/v1/sessions/current')
  assert.equal(out.status, 204)
  const cleared = lastCookie(out)!
  assert.deepEqual([cleared.name, cleared.value, cleared.attributes.get('max-age')], ['taskd_session', '', '0'])
  assert.ok(cleared.attributes.has('httponly'))
  const after = await call(laptop, 'GET', '/v1/users/me')
  assert.equal(after.status, 401)
  assert.equal(after.body.error.code, 'unauthorized')
  assert.equal((await dbAll(s.t.deps.db, 'SELECT id FROM sessions WHERE user_id = ?', fay.id)).length, 0)
  const ended = audit.filter((e) => e.action === 'session.revoked' && e.user?.id === fay.id).map((e) => [e.reason, e.sessions])
  assert.deepEqual(ended, [
    ['revoked', [phone.session]],
    ['signed_out', [laptop.session]],
  ])
})

test('a password change ends the user’s other sessions and unused login links, but not the session it came through', async () => {
  const gus = await person({ withPassword: true })
  const desk = await browserOf(gus)
  const tablet = await browserOf(gus)
  const unused = await linkFor(gus)
  const next = 'a brand new passphrase'
  passwords.add(next)
  const changed = await call(desk, 'PATCH', '/v1/users/me', { body: { password: next, current_password: PASSWORD } })
  assert.equal(changed.status, 200, changed.text)
  assert.ok(await hasSession(desk), 'the session the change came through goes on')
  assert.equal(await hasSession(tablet), false, 'the others end')
  assert.equal((await call({ address: newAddress() }, 'POST', '/v1/sessions', { body: { link_token: unused } })).status, 401, 'unused links end too')
  const entries = audit.filter((e) => e.user?.id === gus.id && ['password.changed', 'session.revoked'].includes(e.action))
  assert.deepEqual(
    entries.slice(-2).map((e) => [e.action, e.actor?.id, e.sessions ?? null, e.reason ?? null]),
    [
      ['password.changed', gus.id, null, null],
      ['session.revoked', gus.id, [tablet.session], 'password_changed'],
    ],
  )
  const b: Browser = { address: newAddress() }
  assert.equal((await signIn(b, { email: gus.email, password: next })).status, 201, 'the new password signs in')
})

test('login links: used once, the GET of a link preview uses nothing, expired by the injected clock, unknown or malformed refused alike', async () => {
  const hal = await person()
  const token = await linkFor(hal)
  const preview = await s.t.req('GET', `/login/${token}`, { headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0' } })
  assert.notEqual(preview.status, 201)
  assert.equal((await dbGet<{ used_at: string | null }>(s.t.deps.db, 'SELECT used_at FROM login_links WHERE hash = ?', sha256Hex(token)))!.used_at, null)
  const b: Browser = { address: newAddress() }
  const used = await signIn(b, { link_token: token })
  assert.equal(used.status, 201)
  assert.equal(used.body.session.via, 'link')
  const again = await call({ address: b.address }, 'POST', '/v1/sessions', { body: { link_token: token } })
  assert.equal(again.status, 401, 'a link works once')
  assert.match(again.body.error.message, /used already, has expired/)

  const late = await linkFor(hal)
  s.t.clock.advance(15 * 60_000)
  const expired = await call({ address: b.address }, 'POST', '/v1/sessions', { body: { link_token: late } })
  assert.equal(expired.status, 401, 'a link expires after 15 minutes')
  assert.equal(expired.body.error.message, again.body.error.message)
  const fresh = await linkFor(hal)
  s.t.clock.advance(15 * 60_000 - 1)
  assert.equal((await signIn({ address: newAddress() }, { link_token: fresh })).status, 201, 'and not before')
  for (const link_token of [`tl_${'q'.repeat(43)}`, 'tl_short', 'anything'])
    assert.equal((await call({ address: newAddress() }, 'POST', '/v1/sessions', { body: { link_token } })).status, 401)
  assert.ok(audit.some((e) => e.action === 'login_link.used' && e.user?.id === hal.id))
  assert.ok(audit.some((e) => e.action === 'login_link.created' && e.user?.id === hal.id && e.actor === null))
})

test('sessions end after 30 idle days and 90 days after sign-in (injected clock); each use, at most once a minute, renews the cookie', async () => {
  const ida = await person()
  const b = await browserOf(ida)
  const same = await call(b, 'GET', '/v1/users/me')
  assert.deepEqual(same.headers.getSetCookie(), [], 'no renewal within the minute')
  s.t.clock.advance(20 * 86_400_000)
  const used = await call(b, 'GET', '/v1/users/me')
  assert.equal(used.status, 200)
  assert.equal(lastCookie(used)!.attributes.get('max-age'), String(30 * 86_400), 'the cookie is renewed for 30 days')
  const row = await call(b, 'GET', `/v1/sessions/${b.session}`)
  assert.equal(row.body.session.last_used, new Date(s.t.clock.now()).toISOString())
  assert.equal(row.body.session.expires, new Date(s.t.clock.now() + 30 * 86_400_000).toISOString())
  for (const days of [25, 25, 19]) {
    s.t.clock.advance(days * 86_400_000)
    assert.equal((await call(b, 'GET', '/v1/users/me')).status, 200, 'in use within 30 days each time')
  }
  const last = await call(b, 'GET', `/v1/sessions/${b.session}`)
  assert.equal(Date.parse(last.body.session.expires), Date.parse(last.body.session.created) + 90 * 86_400_000, 'never past 90 days')
  s.t.clock.advance(2 * 86_400_000)
  const over = await call(b, 'GET', '/v1/users/me')
  assert.equal(over.status, 401, 'ended 90 days after sign-in though in use')
  assert.equal(lastCookie(over)!.attributes.get('max-age'), '0')

  const idle = await browserOf(ida)
  s.t.clock.advance(30 * 86_400_000)
  assert.equal((await call(idle, 'GET', '/v1/users/me')).status, 401, 'ended after 30 days without a request')
})

test('rate limits (injected clock): 10 attempts a minute per address, 5 wrong passwords a minute per account, whatever TASKD_RATE_LIMIT says', async () => {
  const jo = await person({ withPassword: true })
  // Per address: every attempt counts, right or wrong, password or link.
  const address = newAddress()
  for (let i = 0; i < 10; i++) assert.equal((await call({ address }, 'POST', '/v1/sessions', { body: { link_token: 'tl_wrong' } })).status, 401)
  const limited = await call({ address }, 'POST', '/v1/sessions', { body: { link_token: await linkFor(jo) } })
  assert.equal(limited.status, 429)
  assert.equal(limited.body.error.code, 'rate_limited')
  assert.ok(Number(limited.headers.get('retry-after')) >= 1)
  assert.equal(
    (await call({ address: newAddress() }, 'POST', '/v1/sessions', { body: { link_token: 'tl_wrong' } })).status,
    401,
    'another address is not held back',
  )
  s.t.clock.advance(60_000)
  assert.equal((await call({ address }, 'POST', '/v1/sessions', { body: { link_token: 'tl_wrong' } })).status, 401, 'a minute later it may try again')

  // Per account: five wrong passwords from anywhere, then even the right one waits. Sent together, no more than five
  // are checked: each counts as a failure from the moment it is taken up.
  const guesses = (email: string, n: number) =>
    Promise.all(
      Array.from(
        { length: n },
        async (_, i) => (await call({ address: newAddress() }, 'POST', '/v1/sessions', { body: { email, password: `wrong guess ${i}` } })).status,
      ),
    )
  assert.deepEqual((await guesses(jo.email, 7)).sort(), [401, 401, 401, 401, 401, 429, 429])
  const locked = await call({ address: newAddress() }, 'POST', '/v1/sessions', { body: { email: jo.email, password: PASSWORD } })
  assert.equal(locked.status, 429)
  assert.match(locked.body.error.message, /wrong passwords for this account/)
  const wait = Number(locked.headers.get('retry-after'))
  assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`)
  // An unknown email is held back the same way, so a 429 tells nothing about who has an account.
  assert.deepEqual((await guesses('ghost@example.test', 5)).sort(), [401, 401, 401, 401, 401])
  assert.equal((await call({ address: newAddress() }, 'POST', '/v1/sessions', { body: { email: 'ghost@example.test', password: PASSWORD } })).status, 429)
  // A wrong current_password counts against the account too.
  const b = await browserOf(jo)
  assert.equal((await call(b, 'PATCH', '/v1/users/me', { body: { password: 'whatever long enough', current_password: PASSWORD } })).status, 429)
  s.t.clock.advance(wait * 1000)
  const b2: Browser = { address: newAddress() }
  assert.equal((await signIn(b2, { email: jo.email, password: PASSWORD })).status, 201, 'after Retry-After the right password signs in')
  // A right password clears the account's failures: four wrong ones before it do not shorten the next five.
  const al = await person({ withPassword: true })
  assert.deepEqual(await guesses(al.email, 4), [401, 401, 401, 401])
  assert.equal((await signIn({ address: newAddress() }, { email: al.email, password: PASSWORD })).status, 201)
  assert.deepEqual((await guesses(al.email, 6)).sort(), [401, 401, 401, 401, 401, 429])
})

/** `taskd <args>` with stdin, against the fixture's database. */
function cli(args: string[], stdin: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const { config } = s.t.deps
  const target = config.databaseUrl ? ['--db', config.databaseUrl] : ['--db', s.t.dbFile]
  const env: Record<string, string> = { ...cleanEnv, ...(process.env.TASKD_MASTER_KEY ? { TASKD_MASTER_KEY: process.env.TASKD_MASTER_KEY } : {}) }
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [path.join(ROOT, 'bin/taskd.js'), ...args, ...target], { encoding: 'utf8', env }, (err, stdout, stderr) =>
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    )
    child.stdin!.end(stdin)
  })
}

test('taskd user set-password reads the password from stdin (never argv) and ends the user’s sessions; taskd user login-link prints a link that signs in once', async () => {
  const kim = await person()
  const before = await browserOf(kim)
  const secret = 'typed into stdin only'
  passwords.add(secret)
  const short = await cli(['user', 'set-password', kim.email], 'too short\n')
  assert.equal(short.status, 1)
  assert.match(short.stderr, /password must be at least 10 characters/)
  const set = await cli(['user', 'set-password', kim.email], `${secret}\n`)
  assert.equal(set.status, 0, set.stderr)
  assert.ok(!set.stdout.includes(secret) && !set.stderr.includes(secret))
  assert.equal(await hasSession(before), false, 'a password set on the server ends the sessions')
  assert.equal((await signIn({ address: newAddress() }, { email: kim.email, password: secret })).status, 201)
  assert.equal((await cli(['user', 'set-password', 'nobody@example.test'], `${secret}\n`)).status, 1)

  const link = await cli(['user', 'login-link', kim.email], '')
  assert.equal(link.status, 0, link.stderr)
  assert.match(link.stdout, /^http:\/\/127\.0\.0\.1:8080\/login\/tl_[A-Za-z0-9_-]{43}\n$/)
  assert.match(link.stderr, /usable once, until 20\d\d-/)
  const token = link.stdout.trim().split('/login/')[1]
  linkTokens.add(token)
  // The command ran on the real clock; the app's clock may be days ahead by now.
  s.t.clock.t = Date.now()
  const b: Browser = { address: newAddress() }
  assert.equal((await signIn(b, { link_token: token })).status, 201)
  assert.equal((await call({ address: newAddress() }, 'POST', '/v1/sessions', { body: { link_token: token } })).status, 401)
})

test('no password, cookie value, CSRF token or link token in any event, outbox row, audit entry or stored row; the audit saw every kind of action', async () => {
  const actions = new Set(audit.map((e) => e.action))
  for (const action of ['session.created', 'session.revoked', 'signin.failed', 'password.changed', 'login_link.created', 'login_link.used'])
    assert.ok(actions.has(action as never), `an audit entry ${action}`)
  // Each is in the audit log too (and so went out as audit.entry).
  const logged = new Set((await dbAll<{ action: string }>(s.t.deps.db, 'SELECT action FROM audit_log')).map((r) => r.action))
  for (const action of actions) assert.ok(logged.has(action), `the audit log has ${action}`)
  const tables = (
    await dbAll<{ name: string }>(
      s.t.deps.db,
      s.t.deps.db.dialect === 'postgres'
        ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )
  ).map((r) => r.name)
  assert.ok(tables.includes('events') && tables.includes('sessions'))
  const stored = [JSON.stringify(audit)]
  for (const table of tables) stored.push(JSON.stringify(await dbAll(s.t.deps.db, `SELECT * FROM ${table}`)))
  const everything = stored.join('\n')
  assert.ok(passwords.size >= 5 && cookieValues.size >= 10 && csrfTokens.size >= 10 && linkTokens.size >= 10, 'the file used secrets')
  for (const secret of [...passwords, ...cookieValues, ...csrfTokens, ...linkTokens])
    assert.ok(!everything.includes(secret), 'a secret was stored or announced')
  const events = await dbAll<{ name: string }>(s.t.deps.db, 'SELECT name FROM events')
  assert.ok(
    events.every((e) => !/^(session|password|login)/.test(e.name)),
    'sign-in emits no webhook events',
  )
})
