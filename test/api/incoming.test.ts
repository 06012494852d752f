// Incoming webhook endpoints, the managing side: owners and admins only, a random URL, write-only credentials.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbGet } from '../helpers/db.js'
import { assertErrorShape } from '../helpers/scenarios.js'

const KEY_VALUE = 'incoming-header-value-0123456789'

/** Opens sealed credentials with the master key, independently of src/crypto.ts. */
function openIndependently(sealed: string, context: string, keyText: string): string {
  const t = keyText.trim()
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64')
  const raw = Buffer.from(sealed.slice('v1.'.length), 'base64url')
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
  decipher.setAAD(Buffer.from(context))
  decipher.setAuthTag(raw.subarray(12, 28))
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
}

test('incoming endpoints: created by owners and admins with a random URL and write-only credentials; members get 403', async () => {
  const c = await seededApp()
  try {
    const tok = c.tokens.admin.write
    const plain = await c.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Form' } })
    assert.equal(plain.status, 201, plain.text)
    const form = plain.body.incoming_webhook
    assert.match(form.url, /^http:\/\/taskd\.test\/v1\/hooks\/[A-Za-z0-9]{32}$/)
    assert.deepEqual(
      { auth: form.auth, methods: form.methods, boards: form.boards, accept_files: form.accept_files, max_files: form.max_files, paused: form.paused },
      { auth: { type: 'none' }, methods: ['POST'], boards: [], accept_files: false, max_files: 5, paused: false },
    )
    const keyed = await c.t.req('POST', '/v1/webhooks/incoming', {
      token: c.tokens.owner.write,
      body: {
        name: 'CI',
        auth: { type: 'header', header_name: 'X-Api-Key', header_value: KEY_VALUE },
        methods: ['POST', 'PUT'],
        boards: [c.board.id],
        accept_files: true,
        max_files: 20,
      },
    })
    assert.equal(keyed.status, 201, keyed.text)
    const ci = keyed.body.incoming_webhook
    assert.deepEqual([ci.auth, ci.methods, ci.boards, ci.max_files], [{ type: 'header', header_name: 'X-Api-Key' }, ['POST', 'PUT'], [c.board.id], 20])
    assert.notEqual(ci.url, form.url)
    // Sealed under the master key, bound to the endpoint, never in a reply.
    const row = await dbGet<{ auth_enc: string }>(c.t.deps.db, 'SELECT auth_enc FROM incoming_endpoints WHERE id = ?', ci.id)
    const keyText = process.env.TASKD_MASTER_KEY || fs.readFileSync(`${c.t.dbFile}.key`, 'utf8')
    assert.ok(!row!.auth_enc.includes(KEY_VALUE))
    assert.deepEqual(JSON.parse(openIndependently(row!.auth_enc, `incoming:${ci.id}:auth`, keyText)), { header_value: KEY_VALUE })
    const replies = [keyed.text]
    // Members: 403 everywhere (also reading); the API's error shape.
    for (const [method, path, body] of [
      ['GET', '/v1/webhooks/incoming', undefined],
      ['GET', `/v1/webhooks/incoming/${ci.id}`, undefined],
      ['POST', '/v1/webhooks/incoming', { name: 'Mine' }],
      ['PATCH', `/v1/webhooks/incoming/${ci.id}`, { paused: true }],
      ['POST', `/v1/webhooks/incoming/${ci.id}/regenerate`, undefined],
      ['DELETE', `/v1/webhooks/incoming/${ci.id}`, undefined],
      ['GET', `/v1/webhooks/incoming/${ci.id}/logs`, undefined],
    ] as const) {
      const r = await c.t.req(method, path, { token: c.tokens.member.write, body })
      assert.equal(r.status, 403, `${method} ${path}: ${r.text}`)
      assertErrorShape(r.body)
    }
    // Listing and reading, for owners and admins.
    const list = await c.t.req('GET', '/v1/webhooks/incoming?sort=name', { token: c.tokens.owner.read })
    assert.deepEqual(
      list.body.items.map((e: { name: string }) => e.name),
      ['CI', 'Form'],
    )
    replies.push(list.text, (await c.t.req('GET', `/v1/webhooks/incoming/${ci.id}`, { token: tok })).text)
    // Edits: a blank credential keeps the stored one; pausing; null removes authentication.
    const kept = await c.t.req('PATCH', `/v1/webhooks/incoming/${ci.id}`, { token: tok, body: { auth: { header_value: '' }, paused: true, name: 'CI 2' } })
    assert.equal(kept.status, 200, kept.text)
    assert.deepEqual([kept.body.incoming_webhook.auth, kept.body.incoming_webhook.paused], [{ type: 'header', header_name: 'X-Api-Key' }, true])
    const after = await dbGet<{ auth_enc: string }>(c.t.deps.db, 'SELECT auth_enc FROM incoming_endpoints WHERE id = ?', ci.id)
    assert.deepEqual(JSON.parse(openIndependently(after!.auth_enc, `incoming:${ci.id}:auth`, keyText)), { header_value: KEY_VALUE })
    const none = await c.t.req('PATCH', `/v1/webhooks/incoming/${ci.id}`, { token: tok, body: { auth: null } })
    assert.deepEqual(none.body.incoming_webhook.auth, { type: 'none' })
    assert.equal((await dbGet<{ auth_enc: string | null }>(c.t.deps.db, 'SELECT auth_enc FROM incoming_endpoints WHERE id = ?', ci.id))!.auth_enc, null)
    replies.push(kept.text, none.text)
    for (const text of replies) assert.ok(!text.includes(KEY_VALUE) && !text.includes('auth_enc'))
    // Regenerate: a new URL under the same id.
    const regenerated = await c.t.req('POST', `/v1/webhooks/incoming/${form.id}/regenerate`, { token: tok })
    assert.equal(regenerated.status, 200, regenerated.text)
    assert.equal(regenerated.body.incoming_webhook.id, form.id)
    assert.notEqual(regenerated.body.incoming_webhook.url, form.url)
    // Delete.
    assert.equal((await c.t.req('DELETE', `/v1/webhooks/incoming/${form.id}`, { token: tok })).status, 204)
    for (const method of ['GET', 'DELETE']) assert.equal((await c.t.req(method, `/v1/webhooks/incoming/${form.id}`, { token: tok })).status, 404)
    assert.equal((await c.t.req('POST', `/v1/webhooks/incoming/${form.id}/regenerate`, { token: tok })).status, 404)
  } finally {
    await c.t.close()
  }
})

test('incoming endpoints: bad input is a 422 naming the field, and nothing is stored', async () => {
  const c = await seededApp()
  try {
    const trashed = (await c.t.req('POST', '/v1/boards', { token: c.tokens.owner.write, body: { name: 'Gone soon' } })).body.board.id
    assert.equal((await c.t.req('DELETE', `/v1/boards/${trashed}`, { token: c.tokens.owner.write })).status, 204)
    for (const [body, field] of [
      [{ name: 'x', max_files: 21 }, 'max_files'],
      [{ name: 'x', max_files: 0 }, 'max_files'],
      [{ name: 'x', methods: [] }, 'methods'],
      [{ name: 'x', methods: ['HEAD'] }, 'methods.0'],
      [{ name: 'x', auth: { type: 'header', header_name: 'X-Key' } }, 'auth.header_value'],
      [{ name: 'x', auth: { type: 'header', header_value: 'v' } }, 'auth.header_name'],
      [{ name: 'x', auth: { type: 'header', header_name: 'X-Key', header_value: 'line\r\nbreak' } }, 'auth.header_value'],
      [{ name: 'x', auth: { type: 'basic' } }, 'auth.username'],
      [{ name: 'x', auth: { type: 'header', header_name: 'X-Request-Id', header_value: 'would-be-logged' } }, 'auth.header_name'],
      [{ name: 'x', auth: { type: 'bearer', token: 't' } }, 'auth.type'],
      [{ name: 'x', boards: ['nope'] }, 'boards.0'],
      [{ name: 'x', boards: [trashed] }, 'boards.0'],
      [{ name: 'x', secret: 'x' }, 'secret'],
      [{}, 'name'],
    ] as const) {
      const r = await c.t.req('POST', '/v1/webhooks/incoming', { token: c.tokens.owner.write, body })
      assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`)
      assertErrorShape(r.body)
      assert.equal(r.body.error.details[0].path, field, `${JSON.stringify(body)}: ${r.text}`)
    }
    assert.equal((await c.t.req('GET', '/v1/webhooks/incoming', { token: c.tokens.owner.read })).body.totalItems, 0)
  } finally {
    await c.t.close()
  }
})
