// A newcomer's first `taskd serve`, as a child process: a start that cannot take its port says so and makes no one-time
// setup token it could never show, so the next start, on a free port, still shows a usable one; until a token has been
// used, later starts say how to make another.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { runCli } from '../helpers/cli.js'
import { freshDatabase } from '../helpers/database.js'
import { serve, type Served } from '../helpers/serve.js'

test('a first start on a taken port exits with a clear message, the next start shows a usable setup token, and later starts say how to make one until a token is used', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-first-'))
  const db = await freshDatabase(dir)
  const blocker = net.createServer()
  let s: Served | undefined
  try {
    await new Promise<void>((resolve, reject) => {
      blocker.once('error', reject)
      blocker.listen(0, '127.0.0.1', () => resolve())
    })
    const port = (blocker.address() as net.AddressInfo).port
    const taken = await runCli(['serve', '--db', db.databaseUrl ?? db.db, '--port', String(port), '--host', '127.0.0.1'], db.env)
    assert.equal(taken.status, 1, taken.stderr)
    assert.match(taken.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use\\..*--port`))
    assert.doesNotMatch(taken.stdout + taken.stderr, /tt_|Setup token/)

    s = await serve(db.db, db.env)
    const token = s.token
    assert.match(token ?? '', /^tt_\w{40,}$/, `the next start shows the setup token: ${s.output()}`)
    assert.match(s.output(), /API docs: http:\/\/127\.0\.0\.1:\d+\/v1\/docs\/\n/, 'the banner prints the docs address that loads')
    await s.stop()

    // Stopped before anyone used it (the banner scrolled away): the next start says how to make a token.
    s = await serve(db.db, db.env)
    assert.equal(s.token, undefined)
    assert.match(s.output(), /No token has been used yet\..*\n {2}taskd token create --user owner@localhost --name cli --permission full/)
    const me = await fetch(`${s.url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })
    assert.equal(me.status, 200)
    assert.equal(((await me.json()) as { user: { email: string } }).user.email, 'owner@localhost')
    // The owner, the setup token and the owner's login link were made by taskd itself, as the audit log says.
    const audit = await fetch(`${s.url}/v1/audit?sort=created`, { headers: { authorization: `Bearer ${token}` } })
    const entries = ((await audit.json()) as { items: { action: string; actor: { type: string }; details: Record<string, unknown> }[] }).items
    assert.deepEqual(
      entries.map((e) => [e.action, e.actor.type]),
      [
        ['user.created', 'system'],
        ['token.created', 'system'],
        ['login_link.created', 'system'],
      ],
    )
    assert.ok(!JSON.stringify(entries).includes(token!), 'never the token value')
    await s.stop()
    // Once a token has been used, a start says nothing of tokens.
    s = await serve(db.db, db.env)
    assert.doesNotMatch(s.output(), /token/i)
  } finally {
    await s?.stop()
    await new Promise((resolve) => blocker.close(resolve))
    await db.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
