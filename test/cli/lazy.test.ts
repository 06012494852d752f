// Each command loads only what it needs: `--version` none of the server's packages, `token create` no HTTP stack,
// MCP SDK or PostgreSQL driver. Seen from outside by a probe loaded with --require, which writes at exit the modules
// the process resolved (each package a file of its own in the compiled modules) and Node's built-in modules it loaded
// (what the packages bundled into one file still show: express loads http, the MCP transport and HTTP client undici).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { runCli } from '../helpers/cli.js'
import { cleanEnv, ROOT } from '../helpers/serve.js'

interface Loaded {
  urls: string[]
  builtins: string[]
}

/** The probe: module resolution hooked (for require and import alike), its record written when the process exits. */
const PROBE = `
const seen = new Set()
require('node:module').registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r } })
process.on('exit', () => require('node:fs').writeFileSync(process.env.TASKD_PROBE_OUT, JSON.stringify({ urls: [...seen], builtins: process.moduleLoadList })))
`

/** Runs the command (node with the probe, or the binary: NODE_OPTIONS reaches both) and returns what it loaded. */
function loadedBy(dir: string, command: string[], args: string[]): Promise<Loaded & { status: number; stderr: string }> {
  const probe = path.join(dir, 'probe.cjs')
  const out = path.join(dir, 'loaded.json')
  fs.writeFileSync(probe, PROBE)
  fs.rmSync(out, { force: true })
  const [file, ...pre] = command
  const env = { ...cleanEnv, TASKD_PROBE_OUT: out, NODE_OPTIONS: `--require ${probe}` }
  return new Promise((resolve) => {
    execFile(file, [...pre, ...args], { env, encoding: 'utf8' }, (err, _stdout, stderr) => {
      const status = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      resolve({ status, stderr, ...(JSON.parse(fs.readFileSync(out, 'utf8')) as Loaded) })
    })
  })
}

/** The packages and taskd modules a list of resolved URLs names, among `these`. */
const among = (urls: string[], these: string[]) => these.filter((m) => urls.some((u) => u.includes(m)))

const SERVER_PACKAGES = ['/node_modules/express/', '/node_modules/pg/', '/node_modules/@modelcontextprotocol/', '/node_modules/undici/']
// src/http/schemas.js is not among them: the API's body schemas, which other commands check their input with, use it.
const SERVER_MODULES = ['/dist/src/server.js', '/dist/src/app.js', '/dist/src/http/route.js', '/dist/src/mcp/', '/dist/src/db/postgres.js']
/** Built-in modules only the HTTP server (express), the MCP transport and the HTTP client load. */
const SERVER_BUILTINS = ['NativeModule http', 'NativeModule _http_server', 'NativeModule internal/deps/undici/undici']
/**
 * Built-in modules `token create` does without in every form: child_process (commander's, for subcommands that are
 * programs, made lazy by scripts/bundle.mjs; bin/taskd.js's, for an old node) and the sockets and streams of a piped
 * stdout (the value is written with fs.writeSync). The compiled modules load commander as it is, so only the bundle and the binary.
 */
const NOT_FOR_A_TOKEN_BUILTINS = ['NativeModule child_process', 'NativeModule net']

test('CLI: --version, token create and user login-link load only what they need (compiled modules, the bundle, the binary)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-lazy-'))
  const db = path.join(dir, 'taskd.db')
  try {
    assert.equal((await runCli(['user', 'create', '--db', db, '--email', 'ann@example.test', '--name', 'Ann'])).status, 0)
    const token = ['token', 'create', '--db', db, '--user', 'ann@example.test', '--name', 'lazy']

    // The compiled modules one by one (the binary's entry, run by node): every package and module is seen.
    const modules = [process.execPath, path.join(ROOT, 'dist/src/binary.js')]
    const version = await loadedBy(dir, modules, ['--version'])
    assert.equal(version.status, 0, version.stderr)
    assert.ok(among(version.urls, ['/node_modules/commander/']).length, 'the probe sees packages')
    assert.deepEqual(among(version.urls, [...SERVER_PACKAGES, '/node_modules/zod', '/node_modules/kysely/', '/node_modules/better-sqlite3/']), [])
    assert.deepEqual(among(version.urls, [...SERVER_MODULES, '/dist/src/http/', '/dist/src/config.js', '/dist/src/db/', '/dist/src/resources/']), [])
    const created = await loadedBy(dir, modules, token)
    assert.equal(created.status, 0, created.stderr)
    // The token and its audit entry (with the audit.entry event) are written through the stores, as the API writes them.
    assert.ok(among(created.urls, ['/node_modules/better-sqlite3/', '/dist/src/resources/audit/record.js']).length === 2, 'the probe sees what it ran')
    assert.deepEqual(among(created.urls, [...SERVER_PACKAGES, '/node_modules/@asteasolutions/zod-to-openapi/']), [])
    assert.deepEqual(among(created.urls, SERVER_MODULES), [])
    // Issuing a token needs none of the API's list machinery, nor the services around it.
    assert.deepEqual(among(created.urls, ['/dist/src/query/', '/dist/src/resources/tokens/service.js', '/dist/src/resources/users/service.js']), [])
    // A login link: the rows it writes, none of the API's sign-in (its routes, service, the cookie's HTTP side).
    const linked = await loadedBy(dir, modules, ['user', 'login-link', 'ann@example.test', '--db', db])
    assert.equal(linked.status, 0, linked.stderr)
    assert.ok(among(linked.urls, ['/dist/src/resources/sessions/accounts.js']).length === 1, 'the probe sees what it ran')
    assert.deepEqual(among(linked.urls, [...SERVER_PACKAGES, '/node_modules/@asteasolutions/zod-to-openapi/', ...SERVER_MODULES, '/dist/src/query/']), [])
    assert.deepEqual(
      among(linked.urls, ['/dist/src/resources/sessions/service.js', '/dist/src/resources/sessions/routes.js', '/dist/src/resources/sessions/cookie.js']),
      [],
    )

    // taskd as users run it: bin/taskd.js and its bundle, and the single binary when built.
    const bin = path.join(ROOT, 'dist/taskd-linux-x64')
    const runners = [[process.execPath, path.join(ROOT, 'bin/taskd.js')], ...(fs.existsSync(bin) ? [[bin]] : [])]
    for (const runner of runners)
      for (const args of [['--version'], token]) {
        const { builtins, status, stderr } = await loadedBy(dir, runner, args)
        assert.equal(status, 0, stderr)
        assert.deepEqual(
          [...SERVER_BUILTINS, ...(args === token ? NOT_FOR_A_TOKEN_BUILTINS : [])].filter((b) => builtins.includes(b)),
          [],
          `${[...runner, ...args].join(' ')}`,
        )
      }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('CLI: the probe sees what a command loads: healthcheck loads the HTTP client', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-lazy-'))
  try {
    // fetch to a port nothing listens on: the command fails, after loading the client.
    const args = ['healthcheck', '--port', '1', '--db', path.join(dir, 'taskd.db')]
    const checked = await loadedBy(dir, [process.execPath, path.join(ROOT, 'bin/taskd.js')], args)
    assert.equal(checked.status, 1, checked.stderr)
    assert.ok(checked.builtins.includes('NativeModule internal/deps/undici/undici'))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
