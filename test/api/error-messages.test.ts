// Errors say what to change, in words a person reads: a missing field "is required", a wrong type names the type, an
// enum lists its values, a limit names the limit; a CLI option names the flag and the format; a wrong token says the
// token is unknown rather than what the header should look like.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { freshDatabase } from '../helpers/database.js'

test('validation errors over several routes: required, wrong type, enum values, too long, out of range; the first one in the message', async () => {
  const { t, tokens, board } = await seededApp()
  try {
    const token = tokens.owner.full
    const cases: { method: string; path: string; body?: unknown; status: number; details: { path: string; message: string }[] }[] = [
      { method: 'POST', path: '/v1/boards', body: {}, status: 422, details: [{ path: 'name', message: 'name is required.' }] },
      { method: 'POST', path: '/v1/cards', body: { board: board.id }, status: 422, details: [{ path: 'title', message: 'title is required.' }] },
      {
        method: 'POST',
        path: '/v1/cards',
        body: { board: board.id, title: 'x', priority: '3' },
        status: 422,
        details: [{ path: 'priority', message: 'priority must be a number, not "3".' }],
      },
      {
        method: 'POST',
        path: '/v1/tokens',
        body: { name: 'x', permission: 'admin' },
        status: 422,
        details: [{ path: 'permission', message: 'permission must be one of "read", "write", "full", not "admin".' }],
      },
      {
        method: 'POST',
        path: '/v1/tokens',
        body: { name: 'x', expires_at: '31/12/2026' },
        status: 422,
        details: [{ path: 'expires_at', message: 'expires_at must be a date YYYY-MM-DD or an ISO 8601 date-time (2026-12-31T23:59:59Z).' }],
      },
      {
        method: 'POST',
        path: '/v1/boards',
        body: { name: 'x'.repeat(201) },
        status: 422,
        details: [{ path: 'name', message: 'name must be at most 200 characters.' }],
      },
      { method: 'GET', path: '/v1/cards?per_page=1000', status: 400, details: [{ path: 'per_page', message: 'per_page must be at most 500.' }] },
      { method: 'GET', path: '/v1/cards?page=0', status: 400, details: [{ path: 'page', message: 'page must be at least 1.' }] },
    ]
    for (const c of cases) {
      const r = await t.req(c.method, c.path, { token, body: c.body })
      assert.equal(r.status, c.status, `${c.method} ${c.path}: ${r.text}`)
      assert.deepEqual(r.body.error.details, c.details, `${c.method} ${c.path}`)
      assert.ok(r.body.error.message.endsWith(c.details[0].message), `${c.method} ${c.path}: the message names the problem: ${r.body.error.message}`)
      assert.doesNotMatch(r.text, /Invalid input|received undefined|Too (big|small)/)
    }
    const two = await t.req('POST', '/v1/cards', { token, body: { title: '', priority: 9 } })
    assert.match(two.body.error.message, /^The request body is not valid: .+ \(and \d more problems? in details\)$/)
  } finally {
    await t.close()
  }
})

test('a wrong token says the token is unknown, not what the header should look like', async () => {
  const { t } = await seededApp()
  try {
    for (const value of ['tt_...', 'tt_abc', `tt_${'A'.repeat(43)}`]) {
      const r = await t.req('GET', '/v1/users/me', { headers: { authorization: `Bearer ${value}` } })
      assert.equal(r.status, 401)
      assert.match(r.body.error.message, /^The token is unknown/, value)
    }
    const noScheme = await t.req('GET', '/v1/users/me', { headers: { authorization: `tt_${'A'.repeat(43)}` } })
    assert.match(noScheme.body.error.message, /the word Bearer, a space and the token/)
  } finally {
    await t.close()
  }
})

test('CLI options: a bad value names the flag and what it takes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-msg-'))
  const db = await freshDatabase(dir)
  try {
    const target = db.databaseUrl ?? db.db
    const expires = await runCli(['token', 'create', '--db', target, '--user', 'owner@localhost', '--name', 'x', '--expires', '31/12/2026'], db.env)
    assert.equal(expires.status, 1)
    assert.equal(expires.stderr, 'taskd: Invalid arguments:\n  --expires must be a date YYYY-MM-DD or an ISO 8601 date-time (2026-12-31T23:59:59Z).\n')
    const port = await runCli(['serve', '--db', target, '--port', 'abc'], db.env)
    assert.equal(port.status, 1)
    assert.equal(port.stderr, 'taskd: invalid configuration: --port: must be a number, not "abc".\n')
    const envPort = await runCli(['serve', '--db', target], { ...db.env, TASKD_PORT: '70000' })
    assert.equal(envPort.stderr, 'taskd: invalid configuration: TASKD_PORT: must be at most 65535.\n')
    const name = await runCli(['user', 'create', '--db', target, '--email', 'erin@localhost', '--name', ' '], db.env)
    assert.equal(name.stderr, 'taskd: Invalid arguments:\n  --name must not be empty.\n')
  } finally {
    await db.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
