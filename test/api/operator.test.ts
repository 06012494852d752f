// What a careful operator expects: owner-only files, no caching of secrets, OPTIONS without a body, and the requests
// Node's parser refuses answered in the JSON error shape.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { testDialect } from '../helpers/database.js'
import { assertErrorShape } from '../helpers/scenarios.js'

const mode = (file: string) => fs.statSync(file).mode & 0o777

test('the database, its -wal and -shm files and backups are owner-only (0600)', { skip: testDialect !== 'sqlite' && 'SQLite files only' }, async () => {
  const { t, tokens, board } = await seededApp()
  try {
    assert.equal((await t.req('POST', '/v1/cards', { token: tokens.owner.write, body: { board: board.id, title: 'x' } })).status, 201)
    for (const f of [t.dbFile, `${t.dbFile}-wal`, `${t.dbFile}-shm`, `${t.dbFile}.key`]) assert.equal(mode(f).toString(8), '600', f)
    const dest = path.join(t.dir, 'backups', 'copy.db')
    await t.deps.db.backup(dest)
    assert.equal(mode(dest).toString(8), '600', 'the backup')
    await assert.rejects(t.deps.db.backup(t.dbFile), /cannot be the database itself/)
  } finally {
    await t.close()
  }
})

test('replies carrying a token value or a generated secret say Cache-Control: no-store', async () => {
  const { t, tokens } = await seededApp({ allowPrivateTargets: 'true' })
  try {
    const token = await t.req('POST', '/v1/tokens', { token: tokens.owner.write, body: { name: 'ci' } })
    assert.equal(token.status, 201)
    assert.equal(token.headers.get('cache-control'), 'no-store')
    const hook = await t.req('POST', '/v1/webhooks', {
      token: tokens.owner.write,
      body: { name: 'h', url: 'http://127.0.0.1:9/never', events: ['card.created'], boards: [], generate_secret: true, active: false },
    })
    assert.equal(hook.status, 201, hook.text)
    assert.ok(hook.body.secret)
    assert.equal(hook.headers.get('cache-control'), 'no-store')
    const rotated = await t.req('PATCH', `/v1/webhooks/${hook.body.webhook.id}`, { token: tokens.owner.write, body: { generate_secret: true } })
    assert.equal(rotated.headers.get('cache-control'), 'no-store')
    await t.req('DELETE', `/v1/webhooks/${hook.body.webhook.id}`, { token: tokens.owner.write })
  } finally {
    await t.close()
  }
})

test('OPTIONS answers 204 with Allow and no body; an unknown path stays 404', async () => {
  const { t } = await seededApp()
  try {
    const res = await fetch(`${t.url}/v1/cards`, { method: 'OPTIONS' })
    assert.equal(res.status, 204)
    assert.deepEqual(res.headers.get('allow')!.split(', ').sort(), ['GET', 'HEAD', 'OPTIONS', 'POST'])
    assert.equal(await res.text(), '')
    const item = await fetch(`${t.url}/v1/cards/abc`, { method: 'OPTIONS' })
    assert.equal(item.status, 204)
    assert.ok(item.headers.get('allow')!.includes('PATCH'))
    assert.equal((await fetch(`${t.url}/v1/nothing-here`, { method: 'OPTIONS' })).status, 404)
  } finally {
    await t.close()
  }
})

/** A raw HTTP exchange (fetch would refuse to send these requests). */
function rawRequest(url: string, text: string): Promise<string> {
  const { port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(text))
    let out = ''
    socket.on('data', (d) => (out += d.toString()))
    socket.on('end', () => resolve(out))
    socket.on('error', reject)
  })
}

test('headers too large (431) and a malformed Content-Length (400) answer in the JSON error shape', async () => {
  const { t } = await seededApp()
  try {
    for (const [text, status, code] of [
      [`GET /v1/users/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
      ['POST /v1/cards HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'bad_request'],
    ] as const) {
      const reply = await rawRequest(t.url, text)
      const [head, body] = reply.split('\r\n\r\n')
      assert.match(head, new RegExp(`^HTTP/1.1 ${status} `))
      assert.match(head, /content-type: application\/json/i)
      const json = JSON.parse(body)
      assertErrorShape(json)
      assert.equal(json.error.code, code)
    }
  } finally {
    await t.close()
  }
})
