// The single binary (npm run build:binary) alone in an empty folder, with PATH=/usr/bin:/bin and no node_modules above
// it: --version, serve, token create, the README's first steps, the read pool, the embedded docs and web app, a delivery's
// User-Agent, healthcheck, backup and restore, and no addon file left behind. On PostgreSQL too, when the tests run there. Skipped when dist/taskd-linux-x64 has not been built.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { freshDatabase, testDialect, type TestDatabase } from './helpers/database.js'
import { ROOT, serve, type Served } from './helpers/serve.js'

const built = path.join(ROOT, 'dist', 'taskd-linux-x64')
const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version

test(
  'the single binary runs alone: version, serve, tokens, first steps, read pool, docs, deliveries, healthcheck',
  { skip: !fs.existsSync(built) && 'dist/taskd-linux-x64 not built (npm run build:binary)' },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-binary-'))
    for (let up = dir; up !== path.dirname(up); up = path.dirname(up)) assert.ok(!fs.existsSync(path.join(up, 'node_modules')), `node_modules in ${up}`)
    const bin = path.join(dir, 'taskd')
    fs.copyFileSync(built, bin)
    fs.chmodSync(bin, 0o755)
    const tmp = path.join(dir, 'tmp')
    fs.mkdirSync(tmp)
    const env = { PATH: '/usr/bin:/bin', HOME: dir, TMPDIR: tmp }
    let database: TestDatabase | undefined
    const run = (args: string[]) =>
      new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
        execFile(bin, args, { cwd: dir, env: { ...env, ...database?.env }, encoding: 'utf8' }, (err, stdout, stderr) => {
          resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
        })
      })
    const hooks: http.IncomingMessage[] = []
    let hooked: () => void
    const delivered = new Promise<void>((resolve) => (hooked = resolve))
    const receiver = http.createServer((req, res) => {
      hooks.push(req)
      res.end()
      hooked()
    })
    let server: Served | undefined
    try {
      const v = await run(['--version'])
      assert.equal(v.stdout.trim(), version, v.stderr)

      database = await freshDatabase(dir)
      server = await serve(database.db, { ...database.env, TASKD_ALLOW_PRIVATE_TARGETS: 'true' }, { argv: [bin], cwd: dir, baseEnv: env })
      assert.ok(server.token, server.output())
      const made = await run(['token', 'create', '--db', database.databaseUrl ?? database.db, '--user', 'owner@localhost', '--name', 'cli'])
      assert.equal(made.status, 0, made.stderr)
      const token = made.stdout.trim()
      const api = async (method: string, route: string, body?: unknown) => {
        const res = await fetch(server!.url + route, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        })
        return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text() }
      }

      assert.equal((await api('GET', '/v1/users/me')).body.user.email, 'owner@localhost')
      const board = await api('POST', '/v1/boards', { name: 'Launch', key_prefix: 'LCH' })
      assert.equal(board.status, 201, JSON.stringify(board.body))
      const cardBody = { title: 'Write the launch report', board: board.body.board.id, priority: 3, idempotency_key: 'report-1' }
      const card = await api('POST', '/v1/cards', cardBody)
      assert.equal(card.status, 201, JSON.stringify(card.body))
      const again = await api('POST', '/v1/cards', cardBody)
      assert.deepEqual([again.status, again.body.card.id, again.body.card.existing], [200, card.body.card.id, true])
      const cardId = card.body.card.id
      assert.equal((await api('POST', '/v1/comments', { card: cardId, body: 'First draft is **done**.' })).status, 201)
      assert.equal((await api('POST', '/v1/checklists', { card: cardId, title: 'Before sending', items: ['Figures checked', 'Spelling'] })).status, 201)
      assert.equal((await api('POST', '/v1/time-entries/timer/start', { card: cardId, note: 'drafting' })).status, 201)
      assert.equal((await api('POST', '/v1/time-entries/timer/stop')).status, 200)
      const filter = encodeURIComponent('priority >= 3 && title ~ "report"')
      const list = await api('GET', `/v1/cards?filter=${filter}&sort=-created`)
      assert.deepEqual(
        list.body.items.map((c: { key: string }) => c.key),
        ['LCH-1'],
      )
      if (testDialect === 'sqlite') {
        // Lists are read by the read pool: processes of the binary itself, each with the addon loaded and its file gone.
        const children = fs.readFileSync(`/proc/${server.child.pid}/task/${server.child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
        assert.ok(children.length > 0, 'read processes run')
        for (const pid of children) assert.equal(fs.readlinkSync(`/proc/${pid}/exe`), bin)
      }
      assert.deepEqual(fs.readdirSync(tmp), [], 'no addon file is left in TMPDIR')

      const doc = await api('GET', '/v1/openapi.json')
      assert.equal(doc.body.info.version, version)
      for (const [page, script] of [
        ['/v1/docs/', '/v1/docs/swagger-ui-bundle.js'],
        ['/v1/redoc', '/v1/redoc/redoc.standalone.js'],
      ]) {
        const html = await api('GET', page)
        assert.equal(html.status, 200)
        assert.ok(html.body.includes(script.slice(script.lastIndexOf('/') + 1)), `${page} loads ${script}`)
        const js: Response = await fetch(server.url + script)
        assert.equal(js.status, 200)
        assert.ok((await js.arrayBuffer()).byteLength > 100_000, `${script} is the embedded bundle`)
      }
      // The web app, from the binary's assets: its page at / and the script that page names.
      const app = await fetch(`${server.url}/boards/any`, { headers: { accept: 'text/html' } })
      assert.equal(app.status, 200)
      assert.match(app.headers.get('content-security-policy') ?? '', /script-src 'self'/)
      const entry = /src="(\/assets\/[^"]+\.js)"/.exec(await app.text())?.[1]
      assert.ok(entry, 'the web app page names its script')
      const appJs = await fetch(server.url + entry)
      assert.equal(appJs.status, 200)
      assert.ok((await appJs.arrayBuffer()).byteLength > 10_000, `${entry} is the embedded web app`)

      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
      const hook = await api('POST', '/v1/webhooks', {
        name: 'receiver',
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        method: 'POST',
        events: ['card.*'],
        boards: [],
        generate_secret: true,
      })
      assert.equal(hook.status, 201, JSON.stringify(hook.body))
      await api('POST', `/v1/webhooks/${hook.body.webhook.id}/test`)
      await delivered
      assert.equal(hooks[0].headers['user-agent'], `taskd-webhooks/${version}`)

      const port = new URL(server.url).port
      const healthy = await run(['healthcheck', '--port', port])
      assert.equal(healthy.status, 0, healthy.stderr)
      await server.stop()
      assert.equal(await server.exited, 0, server.output())
      if (testDialect === 'sqlite') {
        const backup = await run(['backup', '--db', database.db, 'copy.db'])
        assert.equal(backup.status, 0, backup.stderr)
        const restore = await run(['restore', '--db', 'restored.db', 'copy.db'])
        assert.equal(restore.status, 0, restore.stderr)
      }
      const gone = await run(['healthcheck', '--port', port])
      assert.deepEqual([gone.status, gone.stderr], [1, `taskd: cannot reach http://127.0.0.1:${port}/healthz: connect ECONNREFUSED 127.0.0.1:${port}\n`])
    } finally {
      await server?.stop()
      receiver.closeAllConnections()
      await new Promise((resolve) => receiver.close(resolve))
      await database?.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)
