// Test harness: a real taskd app on a fresh database (SQLite, or PostgreSQL: see database.ts), listening on 127.0.0.1, with a fake clock and seeded users/tokens.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici'
import { createApp } from '../../src/app.js'
import { answerClientErrors } from '../../src/http/client-errors.js'
import { loadConfig, type Config } from '../../src/config.js'
import { openDatabase } from '../../src/db/open.js'
import { createLogger } from '../../src/log.js'
import { filledTemplate, freshDatabase, type Template, type TestDatabase } from './database.js'
import type { Permission, Role } from '../../src/access/roles.js'
import type { Deps } from '../../src/deps.js'
import { issueToken } from '../../src/resources/tokens/issue.js'
import { ensureWorkspace, insertNewUser } from '../../src/resources/users/setup.js'
import { createDeps } from '../../src/server.js'
import { checkResponse } from './openapi-check.js'
import { assertStoredPayloads } from './events.js'

export class FakeClock {
  constructor(public t = Date.parse('2026-11-21T12:00:00.000Z')) {}
  now = (): number => this.t
  advance(ms: number): void {
    this.t += ms
  }
}

export interface Reply {
  status: number
  body: any
  headers: Headers
  text: string
}

export interface TestApp {
  url: string
  deps: Deps
  clock: FakeClock
  dir: string
  dbFile: string
  close(): Promise<void>
  /** Creates a user with the given role and returns its id. */
  user(role: Role, name?: string, email?: string): Promise<{ id: string; email: string }>
  /** Creates a token for a user id. */
  token(userId: string, permission?: Permission, expiresAt?: string): Promise<string>
  req(method: string, urlPath: string, opts?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Reply>
}

let counter = 0

export async function startTestApp(configOverrides: Partial<Record<keyof Config, unknown>> = {}, from?: Template): Promise<TestApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-test-'))
  const database = await freshDatabase(dir, from)
  return appOn(database, dir, configOverrides, async () => {
    await database.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  })
}

/** The app on `database`; close() closes it, then runs `dispose`. */
async function appOn(
  database: TestDatabase,
  dir: string,
  configOverrides: Partial<Record<keyof Config, unknown>>,
  dispose: () => Promise<void>,
): Promise<TestApp> {
  const dbFile = database.db
  const config = loadConfig(
    {
      db: dbFile,
      databaseUrl: database.databaseUrl,
      databaseDirectUrl: database.databaseDirectUrl,
      masterKey: process.env.TASKD_MASTER_KEY,
      port: 0,
      baseUrl: 'http://taskd.test',
      ...configOverrides,
    },
    {},
  )
  const clock = new FakeClock()
  const db = await openDatabase(config)
  await db.tx(({ q }) => ensureWorkspace(q, clock.now()))
  const deps = createDeps(db, config, clock)
  // DEBUG_TASKD=1 shows what a 500 hid.
  const { app, api } = createApp(deps, { logger: createLogger(process.env.DEBUG_TASKD ? 'debug' : 'silent') })
  const server = http.createServer(app)
  answerClientErrors(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    deps,
    clock,
    dir,
    dbFile,
    async close() {
      // Every event the test caused must match its schema; reported after the cleanup, so a failure leaves nothing behind.
      const invalid = await assertStoredPayloads(db).then(
        () => undefined,
        (err: unknown) => (err instanceof assert.AssertionError ? err : undefined),
      )
      deps.claimWaiters.close()
      deps.feedWaiters.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      // The requests that follow get a new connection pool: a kept-alive connection to this server would otherwise be
      // taken by the first request to a server the system gives the same port later, which it answers with a reset.
      const stale = getGlobalDispatcher()
      setGlobalDispatcher(new Agent())
      void stale.close().catch(() => undefined)
      await db.close()
      await dispose()
      if (invalid) throw invalid
    },
    async user(role, name, email) {
      const n = ++counter
      const row = await db.tx(({ q }) => insertNewUser(q, clock.now(), { email: email ?? `${role}${n}@example.test`, name: name ?? `${role} ${n}`, role }))
      return { id: row.id, email: row.email }
    },
    async token(userId, permission = 'write', expiresAt) {
      return (await db.tx(({ q }) => issueToken(q, clock.now(), userId, { name: `t${++counter}`, permission, expires_at: expiresAt }))).value
    },
    async req(method, urlPath, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) }
      if (opts.token) headers.authorization = `Bearer ${opts.token}`
      let body: string | undefined = opts.raw
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body)
        headers['content-type'] ??= 'application/json'
      }
      const res = await fetch(url + urlPath, { method, headers, body })
      const text = await res.text()
      let parsed: unknown
      try {
        parsed = text ? JSON.parse(text) : undefined
      } catch {
        parsed = undefined
      }
      checkResponse(api.routes, method, urlPath, res.status, parsed)
      return { status: res.status, body: parsed, headers: res.headers, text }
    },
  }
}

/** A workspace with an owner, an admin and a member, each with read, write and full (where allowed) tokens, and one board. */
export async function seededApp(configOverrides: Partial<Record<keyof Config, unknown>> = {}) {
  const { template, seed } = await seededTemplate()
  return { t: await startTestApp(configOverrides, template), ...seed }
}

/**
 * A seeded app with what `fill` adds to it, for the tests of a whole file; the app is closed when making it fails too
 * (the file's `after` hook closes it otherwise).
 */
/**
 * An active subscription of the seeded board to a closed port on 127.0.0.1 (the app needs allowPrivateTargets): the
 * board's changes then write outbox rows, whose deliveries fail after the commit, outside what a test looks at.
 */
export async function closedPortSubscription(c: Awaited<ReturnType<typeof seededApp>>, events: string[]): Promise<void> {
  const sub = await c.t.req('POST', '/v1/webhooks', {
    token: c.tokens.owner.write,
    body: { name: 'w', url: 'http://127.0.0.1:9/hook', events, boards: [c.board.id] },
  })
  assert.equal(sub.status, 201, sub.text)
}

export async function seededFixture<T extends object>(fill: (s: Awaited<ReturnType<typeof seededApp>>) => Promise<T>) {
  const s = await seededApp()
  try {
    return { ...s, ...(await fill(s)) }
  } catch (err) {
    await s.t.close()
    throw err
  }
}

type Seed = Awaited<ReturnType<typeof plantSeed>>

/**
 * The seeded workspace, made once (see filledTemplate) and copied for each test: its tokens' values are in the
 * template's note. Emails of their own: a user a test adds must not take one (the counter restarts in each process).
 */
async function plantSeed(t: TestApp) {
  const seeded = (role: Role, n: number) => t.user(role, `${role} ${n}`, `${role}${n}@seed.example.test`)
  const owner = await seeded('owner', 1),
    admin = await seeded('admin', 2),
    member = await seeded('member', 3),
    outsider = await seeded('member', 4)
  const tokens = {
    owner: { read: await t.token(owner.id, 'read'), write: await t.token(owner.id, 'write'), full: await t.token(owner.id, 'full') },
    admin: { read: await t.token(admin.id, 'read'), write: await t.token(admin.id, 'write'), full: await t.token(admin.id, 'full') },
    member: { read: await t.token(member.id, 'read'), write: await t.token(member.id, 'write') },
    outsider: { read: await t.token(outsider.id, 'read'), write: await t.token(outsider.id, 'write') },
  }
  const created = await t.req('POST', '/v1/boards', { token: tokens.owner.write, body: { name: 'Launch', key_prefix: 'LCH' } })
  const board = created.body.board as { id: string }
  const lists = created.body.lists as { id: string; name: string }[]
  for (const u of [admin, member]) await t.req('POST', `/v1/boards/${board.id}/members`, { token: tokens.owner.write, body: { user: u.id } })
  return { owner, admin, member, outsider, tokens, board, lists }
}

// The seed's template is known by the code that plants it and the app that answered: changed code makes a new one (a
// PostgreSQL cluster keeps its templates from run to run).
const seedKey = (() => {
  const hash = crypto.createHash('sha1').update(plantSeed.toString())
  const src = fileURLToPath(new URL('../../src/', import.meta.url))
  for (const file of (fs.readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.js')).sort())
    hash.update(file).update(fs.readFileSync(path.join(src, file)))
  return `seed_${hash.digest('hex').slice(0, 12)}`
})()
let seedReady: Promise<{ template: Template; seed: Seed }> | undefined

const seededTemplate = () =>
  (seedReady ??= filledTemplate(seedKey, async (database) => {
    const t = await appOn(database, path.dirname(database.db), {}, async () => {})
    try {
      return JSON.stringify(await plantSeed(t))
    } finally {
      await t.close()
    }
  }).then((template) => ({ template, seed: JSON.parse(template.note) as Seed })))
