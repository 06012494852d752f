// The built CLI as a child process: user create, token create, serve, a request, backup while serving, integrity check.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { seededApp } from '../helpers/app.js'
import { runCli as run } from '../helpers/cli.js'
import { ROOT, serve as serveChild, type Served } from '../helpers/serve.js'

const servers = new Set<Served>()
async function serve(db: string, env: Record<string, string> = {}) {
  const started = performance.now()
  const server = await serveChild(db, env)
  servers.add(server)
  return { ...server, out: server.output, startMs: performance.now() - started }
}
const stopAll = () => Promise.all([...servers].map((s) => s.stop()))

test('CLI: user create, token create, serve, request, backup while serving', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-cli-'))
  const db = path.join(dir, 'data', 'taskd.db')
  try {
    const user = await run(['user', 'create', '--db', db, '--email', 'ann@example.test', '--name', 'Ann', '--role', 'admin'])
    assert.equal(user.status, 0, user.stderr)
    assert.match(user.stdout, /^[a-z0-9]{16}\n$/)
    const token = await run(['token', 'create', '--db', db, '--user', 'ann@example.test', '--name', 'ci', '--permission', 'full'])
    assert.equal(token.status, 0, token.stderr)
    assert.match(token.stdout, /^tt_[0-9A-Za-z]{40,}\n$/, 'only the raw value on stdout')
    const value = token.stdout.trim()
    assert.equal((await run(['token', 'create', '--db', db, '--user', 'nobody@x', '--name', 'x'])).status, 1)
    assert.notEqual((await run(['token', 'create', '--db', db, '--user', 'ann@example.test', '--name', 'x', '--permission', 'root'])).status, 0)

    const server = await serve(db)
    assert.doesNotMatch(server.out(), /Setup token/, 'a non-empty database prints no setup token')
    // bin/taskd.js replaced itself (same pid) with a node that has taskd's V8 settings.
    const { V8_FLAGS } = (await import(pathToFileURL(path.join(ROOT, 'bin/v8-flags.js')).href)) as { V8_FLAGS: string[] }
    const argv = fs.readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0')
    for (const flag of V8_FLAGS) assert.ok(argv.includes(flag), `${flag} in ${argv.join(' ')}`)
    const me = await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${value}` } })
    assert.equal(me.status, 200)
    assert.equal((await me.json()).user.email, 'ann@example.test')
    const board = await fetch(`${server.url}/v1/boards`, {
      method: 'POST',
      headers: { authorization: `Bearer ${value}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ops' }),
    })
    assert.equal(board.status, 201)
    // A list is read by a read process, which runs with the same V8 settings.
    assert.equal((await fetch(`${server.url}/v1/boards`, { headers: { authorization: `Bearer ${value}` } })).status, 200)
    const children = fs
      .readdirSync(`/proc/${server.child.pid}/task`)
      .flatMap((t) => fs.readFileSync(`/proc/${server.child.pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean))
    const readers = children
      .map((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'))
      .filter((a) => a.some((x) => x.endsWith('read-worker.js')))
    assert.equal(readers.length, 1, 'one read process started by the list')
    for (const flag of V8_FLAGS) assert.ok(readers[0].includes(flag), `${flag} in ${readers[0].join(' ')}`)

    const list = await run(['token', 'list', '--db', db])
    assert.match(list.stdout, /ci\s+full\s+tt_/)
    const backupFile = path.join(dir, 'backup.db')
    const backup = await run(['backup', '--db', db, backupFile])
    assert.equal(backup.status, 0, backup.stderr)
    const copy = new Database(backupFile, { readonly: true })
    assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok')
    assert.equal((copy.prepare('SELECT count(*) AS n FROM boards').get() as { n: number }).n, 1)
    copy.close()

    const id = /^(\S+)\s+ci\s/m.exec(list.stdout)![1]
    assert.equal((await run(['token', 'revoke', '--db', db, id])).status, 0)
    assert.equal((await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${value}` } })).status, 401)
    await server.stop()
    assert.match((await run(['migrate', '--db', db])).stdout, /schema at version \d+/)
  } finally {
    await stopAll()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('CLI: the bundled command (dist/src/taskd.cjs, what bin/taskd.js runs) is strict-mode code, as its ES modules are', () => {
  // A strict function's `caller` cannot be read; a sloppy one's can (it is null).
  const probe = `const { buildProgram } = require(${JSON.stringify(path.join(ROOT, 'dist/src/taskd.cjs'))}); try { buildProgram.caller; console.log('sloppy') } catch { console.log('strict') }`
  assert.equal(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).trim(), 'strict')
})

test('CLI: bin/taskd.js refuses a bundle older than the compiled code, or none, and says to build', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-stale-'))
  try {
    fs.mkdirSync(path.join(dir, 'bin'))
    for (const f of ['taskd.js', 'v8-flags.js']) fs.copyFileSync(path.join(ROOT, 'bin', f), path.join(dir, 'bin', f))
    fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}')
    fs.mkdirSync(path.join(dir, 'dist/src/cli'), { recursive: true })
    fs.writeFileSync(path.join(dir, 'dist/src/cli/index.js'), '')
    const taskd = () => spawnSync(process.execPath, [path.join(dir, 'bin/taskd.js'), '--version'], { encoding: 'utf8' })
    for (const bundle of ['none', 'stale']) {
      if (bundle === 'stale') {
        const file = path.join(dir, 'dist/src/taskd.cjs')
        fs.writeFileSync(file, 'exports.main = () => console.log("stale")')
        fs.utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))
      }
      const r = taskd()
      assert.equal(r.status, 1, `${bundle}: ${r.stdout}`)
      assert.match(r.stderr, /run npm run build/, bundle)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('CLI: serve on an empty database creates the owner and prints a one-time setup token', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-cli-'))
  const db = path.join(dir, 'taskd.db')
  try {
    const first = await serve(db)
    const token = /Setup token[^:]*: (tt_\S+)/.exec(first.out())?.[1]
    assert.ok(token, first.out())
    // What to do next: the docs, and a curl with the real address and token.
    assert.ok(first.out().includes(`API docs: ${first.url}/v1/docs/\n`), first.out())
    assert.ok(first.out().includes(`Try it: curl -s ${first.url}/v1/users/me -H "Authorization: Bearer ${token}"\n`), first.out())
    assert.equal((await fetch(`${first.url}/v1/docs/`)).status, 200)
    const started = performance.now()
    const me = await fetch(`${first.url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })
    assert.equal(me.status, 200)
    assert.equal((await me.json()).user.role, 'owner')
    console.log(`cold start to first 200: ${Math.round(first.startMs + performance.now() - started)} ms`)
    await first.stop()
    const second = await serve(db)
    assert.doesNotMatch(second.out(), /Setup token|API docs|Try it/)
    await second.stop()
  } finally {
    await stopAll()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('CLI: a server answers /v1/users/me without loading the MCP SDK or an HTTP client; the first /mcp request loads them', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-cli-'))
  // Loaded into the server with NODE_OPTIONS: on SIGUSR2 it writes whether Node's fetch implementation (internal undici,
  // which the MCP SDK's HTTP transport and the undici package both load) is loaded yet.
  const probe = path.join(dir, 'probe.cjs')
  const report = path.join(dir, 'loaded')
  fs.writeFileSync(
    probe,
    `process.on('SIGUSR2', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, String(process.moduleLoadList.includes('NativeModule internal/deps/undici/undici'))))`,
  )
  try {
    const server = await serve(path.join(dir, 'taskd.db'), { NODE_OPTIONS: `--require ${probe}` })
    const loaded = async () => {
      fs.rmSync(report, { force: true })
      server.child.kill('SIGUSR2')
      while (!fs.existsSync(report)) await new Promise((r) => setTimeout(r, 10)) // written by the server's handler
      return fs.readFileSync(report, 'utf8')
    }
    const auth = { authorization: `Bearer ${server.token}` }
    assert.equal((await fetch(`${server.url}/v1/users/me`, { headers: auth })).status, 200)
    assert.equal(await loaded(), 'false', 'nothing at start or for /v1/users/me loads them')
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    assert.equal(mcp.status, 200)
    assert.ok(((await mcp.json()) as { result: { tools: unknown[] } }).result.tools.length > 0)
    assert.equal(await loaded(), 'true', 'the first /mcp request loaded them')
  } finally {
    await stopAll()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('CLI: user create and token create refuse what the API refuses, with the API reasons, named by flag', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-cli-'))
  const db = path.join(dir, 'taskd.db')
  const api = await seededApp()
  try {
    // The API's reasons for the same input.
    const reason = async (p: string, body: unknown, field: string) => {
      const r = await api.t.req('POST', p, { token: api.tokens.owner.full, body })
      assert.equal(r.status, 422, r.text)
      return r.body.error.details.find((d: { path: string }) => d.path === field).message as string
    }
    const badEmail = await reason('/v1/users', { email: 'not-an-email', name: 'X' }, 'email')
    const pastExpiry = await reason('/v1/tokens', { name: 't', expires_at: '2020-01-01' }, 'expires_at')
    const emptyName = await reason('/v1/tokens', { name: '' }, 'name')

    const user = await run(['user', 'create', '--db', db, '--email', 'not-an-email', '--name', 'X'])
    assert.equal(user.status, 1)
    assert.equal(user.stdout, '', 'nothing created, nothing printed')
    assert.ok(user.stderr.includes(`  ${badEmail.replace(/^email /, '--email ')}`), user.stderr)
    assert.equal((await run(['user', 'create', '--db', db, '--email', 'ann@example.test', '--name', 'Ann'])).status, 0)
    const expired = await run(['token', 'create', '--db', db, '--user', 'ann@example.test', '--name', 't', '--expires', '2020-01-01'])
    assert.equal(expired.status, 1)
    assert.ok(expired.stderr.includes(`--expires: ${pastExpiry}`), expired.stderr)
    const unnamed = await run(['token', 'create', '--db', db, '--user', 'ann@example.test', '--name', ''])
    assert.equal(unnamed.status, 1)
    // The API's sentence names the field; the command's names the flag.
    assert.ok(unnamed.stderr.includes(`  ${emptyName.replace(/^name /, '--name ')}`), unnamed.stderr)
    const listed = await run(['token', 'list', '--db', db, '--user', 'ann@example.test'])
    assert.equal(listed.status, 0, listed.stderr)
    assert.equal(listed.stdout.includes('ann@example.test'), false, 'no token was made')
    // The same list shows a token once one is made, so the check above can fail.
    assert.equal((await run(['token', 'create', '--db', db, '--user', 'ann@example.test', '--name', 'real'])).status, 0)
    assert.ok((await run(['token', 'list', '--db', db, '--user', 'ann@example.test'])).stdout.includes('ann@example.test'))
  } finally {
    await api.t.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('CLI: one server per database file: a second serve is refused with the first one named, and starts once it stopped', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-cli-'))
  const db = path.join(dir, 'taskd.db')
  try {
    const first = await serve(db)
    await assert.rejects(serve(db), (err: Error) => {
      assert.match(err.message, /exited early \(1\)/)
      assert.match(err.message, new RegExp(`taskd: taskd \\(pid ${first.child.pid}\\) is using .*taskd\\.db: stop it first, or serve another --db`))
      assert.doesNotMatch(err.message, /\n\s+at /, 'no stack trace')
      return true
    })
    const me = await fetch(`${first.url}/v1/users/me`, { headers: { authorization: `Bearer ${first.token}` } })
    assert.equal(me.status, 200, 'the first server still serves')
    await first.stop()
    const second = await serve(db)
    assert.equal((await fetch(`${second.url}/v1/users/me`, { headers: { authorization: `Bearer ${first.token}` } })).status, 200)
  } finally {
    await stopAll()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('CLI: healthcheck answers 0 while the server answers /healthz (also for a server on every address), 1 once it stopped', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-cli-'))
  try {
    const server = await serve(path.join(dir, 'taskd.db'))
    const port = new URL(server.url).port
    assert.equal((await run(['healthcheck', '--port', port])).status, 0)
    // A server on 0.0.0.0 (the container's setting) is checked on loopback; nothing here listens on 0.0.0.0.
    const everywhere = await run(['healthcheck', '--port', port], { TASKD_HOST: '0.0.0.0' })
    assert.equal(everywhere.status, 0, everywhere.stderr)
    await server.stop()
    const down = await run(['healthcheck', '--port', port])
    assert.equal(down.status, 1)
    assert.match(down.stderr, /^taskd: cannot reach http:\/\/127\.0\.0\.1:\d+\/healthz/)
  } finally {
    await stopAll()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
