// Signing secrets: owners and admins store them, everyone lists them, nobody ever reads a value back.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbGet } from '../helpers/db.js'
import { assertErrorShape } from '../helpers/scenarios.js'

const VALUE = 'runner-key-0123456789-abcdef'
const NEW_VALUE = 'replaced-key-9876543210-zyxwvu'

/** Opens a stored value with the workspace master key, independently of src/crypto.ts: v1.<base64url(iv | tag | ciphertext)>. */
function openIndependently(sealed: string, id: string, keyText: string): string {
  const t = keyText.trim()
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64')
  assert.ok(sealed.startsWith('v1.'))
  const raw = Buffer.from(sealed.slice(3), 'base64url')
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
  decipher.setAAD(Buffer.from(`signing-secret:${id}`))
  decipher.setAuthTag(raw.subarray(12, 28))
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
}

test('signing secrets: owners and admins create, replace and delete; members list; the value is sealed and never returned', async () => {
  const c = await seededApp()
  try {
    const created = await c.t.req('POST', '/v1/signing-secrets', { token: c.tokens.admin.write, body: { name: 'Runner', value: VALUE } })
    assert.equal(created.status, 201, created.text)
    const secret = created.body.signing_secret
    assert.deepEqual(Object.keys(secret).sort(), ['created_at', 'created_by', 'id', 'name', 'rotating_until', 'updated_at'])
    assert.deepEqual(secret.created_by, { id: c.admin.id, name: (await c.t.req('GET', '/v1/users/me', { token: c.tokens.admin.read })).body.user.name })
    const replies = [created.text]
    for (const token of [c.tokens.member.read, c.tokens.owner.read]) {
      const list = await c.t.req('GET', '/v1/signing-secrets', { token })
      assert.deepEqual(
        list.body.items.map((s: { id: string; name: string }) => [s.id, s.name]),
        [[secret.id, 'Runner']],
      )
      const one = await c.t.req('GET', `/v1/signing-secrets/${secret.id}`, { token })
      assert.equal(one.body.signing_secret.name, 'Runner')
      replies.push(list.text, one.text)
    }
    // Stored sealed under the master key, bound to its row.
    const keyText = process.env.TASKD_MASTER_KEY || fs.readFileSync(`${c.t.dbFile}.key`, 'utf8')
    const row = await dbGet<{ value_enc: string }>(c.t.deps.db, 'SELECT value_enc FROM signing_secrets WHERE id = ?', secret.id)
    assert.ok(!row!.value_enc.includes(VALUE))
    assert.equal(openIndependently(row!.value_enc, secret.id, keyText), VALUE)
    // Members read names only; they cannot create, replace or delete.
    for (const [method, path, body] of [
      ['POST', '/v1/signing-secrets', { name: 'Mine', value: VALUE }],
      ['PUT', `/v1/signing-secrets/${secret.id}`, { value: NEW_VALUE }],
      ['DELETE', `/v1/signing-secrets/${secret.id}`, undefined],
    ] as const) {
      const r = await c.t.req(method, path, { token: c.tokens.member.write, body })
      assert.equal(r.status, 403, `${method} ${path} by a member: ${r.text}`)
      assertErrorShape(r.body)
    }
    assert.equal((await c.t.req('POST', '/v1/signing-secrets', { token: c.tokens.owner.read, body: { name: 'R', value: VALUE } })).status, 403, 'read token')
    // Bad input: a clear 422, nothing stored.
    for (const [body, field] of [
      [{ name: 'Short', value: 'too-short' }, 'value'],
      [{ name: 'Blank', value: '' }, 'value'],
      [{ name: '  ', value: VALUE }, 'name'],
      [{ name: 'Extra', value: VALUE, reveal: true }, 'reveal'],
      [{ value: VALUE }, 'name'],
    ] as const) {
      const r = await c.t.req('POST', '/v1/signing-secrets', { token: c.tokens.owner.write, body })
      assert.equal(r.status, 422, JSON.stringify(body))
      assert.equal(r.body.error.details[0].path, field, r.text)
      assert.ok(!r.text.includes(VALUE), 'the value is not echoed in the error')
    }
    assert.equal((await c.t.req('GET', '/v1/signing-secrets', { token: c.tokens.owner.read })).body.totalItems, 1)
    // Replace: the new value is stored at once, under the same id; the name may change too.
    c.t.clock.advance(1000)
    const replaced = await c.t.req('PUT', `/v1/signing-secrets/${secret.id}`, { token: c.tokens.owner.write, body: { value: NEW_VALUE, name: 'Runner 2' } })
    assert.equal(replaced.status, 200, replaced.text)
    assert.equal(replaced.body.signing_secret.name, 'Runner 2')
    assert.ok(replaced.body.signing_secret.updated_at > secret.updated_at)
    replies.push(replaced.text)
    const after = await dbGet<{ value_enc: string }>(c.t.deps.db, 'SELECT value_enc FROM signing_secrets WHERE id = ?', secret.id)
    assert.equal(openIndependently(after!.value_enc, secret.id, keyText), NEW_VALUE)
    assert.equal((await c.t.req('PUT', '/v1/signing-secrets/nope', { token: c.tokens.owner.write, body: { value: NEW_VALUE } })).status, 404)
    // No reply ever carried a value; the export leaves secrets out.
    const exported = await c.t.req('POST', '/v1/actions/export-workspace', { token: c.tokens.owner.full })
    assert.equal(exported.status, 200, exported.text)
    replies.push(exported.text)
    for (const text of replies) assert.ok(!text.includes(VALUE) && !text.includes(NEW_VALUE) && !text.includes('value_enc'))
    // Delete.
    assert.equal((await c.t.req('DELETE', `/v1/signing-secrets/${secret.id}`, { token: c.tokens.owner.write })).status, 204)
    assert.equal((await c.t.req('GET', `/v1/signing-secrets/${secret.id}`, { token: c.tokens.owner.read })).status, 404)
    assert.equal((await c.t.req('DELETE', `/v1/signing-secrets/${secret.id}`, { token: c.tokens.owner.write })).status, 404)
  } finally {
    await c.t.close()
  }
})
