// Test harness: a real taskd app on a fresh database (SQLite, or PostgreSQL: see database.ts), listening on 127.0.0.1, with a fake clock and seeded users/tokens.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { createApp } from '../../src/app.js'
import { answerClientErrors } from '../../src/http/client-errors.js'
import { loadConfig, type Config } from '../../src/config.js'
import { openDatabase } from '../../src/db/open.js'
import { createLogger } from '../../src/log.js'
import { freshDatabase } from './database.js'
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
  user(role: Role, name?: string): Promise<{ id: string; email: string }>
  /** Creates a token for a user id. */
  token(userId: string, permission?: Permission, expiresAt?: string): Promise<string>
  req(method: string, urlPath: string, opts?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Reply>
}

let counter = 0

export async function startTestApp(configOverrides: Partial<Record<keyof Config, unknown>> = {}): Promise<TestApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-test-'))
  const database = await freshDatabase(dir)
  const dbFile = database.db
  const config = loadConfig(
    { db: dbFile, databaseUrl: database.databaseUrl, masterKey: process.env.TASKD_MASTER_KEY, port: 0, baseUrl: 'http://taskd.test', ...configOverrides },
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
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await db.close()
      await database.drop()
      fs.rmSync(dir, { recursive: true, force: true })
      if (invalid) throw invalid
    },
    async user(role, name) {
      const n = ++counter
      const row = await db.tx(({ q }) => insertNewUser(q, clock.now(), { email: `${role}${n}@example.test`, name: name ?? `${role} ${n}`, role }))
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
  const t = await startTestApp(configOverrides)
  const owner = await t.user('owner'),
    admin = await t.user('admin'),
    member = await t.user('member'),
    outsider = await t.user('member')
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
  return { t, owner, admin, member, outsider, tokens, board, lists }
}
