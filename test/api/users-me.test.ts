// A user changes their own name and email (PATCH /v1/users/me), and an email is any address with a local part and a
// host, local host names included (carol@localhost), in the API and the CLI alike.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { freshDatabase } from '../helpers/database.js'

test('PATCH /v1/users/me: any user changes their own name and email; a taken email is 409; the role stays out of reach', async () => {
  const { t, tokens, member, admin } = await seededApp()
  try {
    const changed = await t.req('PATCH', '/v1/users/me', { token: tokens.member.write, body: { name: 'Carol', email: 'carol@localhost' } })
    assert.equal(changed.status, 200, changed.text)
    assert.deepEqual(
      [changed.body.user.id, changed.body.user.name, changed.body.user.email, changed.body.user.role],
      [member.id, 'Carol', 'carol@localhost', 'member'],
    )
    const me = await t.req('GET', '/v1/users/me', { token: tokens.member.read })
    assert.deepEqual([me.body.user.name, me.body.user.email], ['Carol', 'carol@localhost'])
    const seen = await t.req('GET', `/v1/users/${member.id}`, { token: tokens.owner.read })
    assert.equal(seen.body.user.name, 'Carol', 'others see the change')

    const nameOnly = await t.req('PATCH', '/v1/users/me', { token: tokens.member.write, body: { name: 'Carol B' } })
    assert.deepEqual([nameOnly.body.user.name, nameOnly.body.user.email], ['Carol B', 'carol@localhost'])

    const taken = await t.req('PATCH', '/v1/users/me', { token: tokens.member.write, body: { email: admin.email.toUpperCase() } })
    assert.equal(taken.status, 409)
    assert.equal(taken.body.error.code, 'conflict')
    // The same rule where an admin changes someone's email.
    const takenByAdmin = await t.req('PATCH', `/v1/users/${member.id}`, { token: tokens.owner.full, body: { email: admin.email } })
    assert.equal(takenByAdmin.status, 409)

    const role = await t.req('PATCH', '/v1/users/me', { token: tokens.member.write, body: { role: 'owner' } })
    assert.equal(role.status, 422)
    assert.deepEqual(role.body.error.details, [{ path: 'role', message: 'Unknown field "role".' }])
    const bad = await t.req('PATCH', '/v1/users/me', { token: tokens.member.write, body: { email: 'carol' } })
    assert.equal(bad.status, 422)
    assert.equal(bad.body.error.details[0].path, 'email')
    const empty = await t.req('PATCH', '/v1/users/me', { token: tokens.member.write, body: { name: ' ' } })
    assert.equal(empty.status, 422)
    assert.deepEqual(empty.body.error.details, [{ path: 'name', message: 'name must not be empty.' }])
    const readOnly = await t.req('PATCH', '/v1/users/me', { token: tokens.member.read, body: { name: 'X' } })
    assert.equal(readOnly.status, 403)
    assert.equal((await t.req('GET', '/v1/users/me', { token: tokens.member.read })).body.user.name, 'Carol B', 'refused changes left nothing behind')

    const doc = (await t.req('GET', '/v1/openapi.json')).body
    assert.equal(doc.paths['/v1/users/me'].patch.operationId, 'updateMe')
    assert.ok(doc.paths['/v1/users/me'].patch.responses['409'])
  } finally {
    await t.close()
  }
})

test('an email needs a local part and a host, not a top-level domain: the API and `taskd user create` take carol@localhost', async () => {
  const { t, tokens } = await seededApp()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-email-'))
  const db = await freshDatabase(dir)
  try {
    for (const email of ['carol@localhost', 'dave@nas', 'erin@tasks.example.com', 'fr.ank+tag@intra-net.lan', 'gus@münchen.example']) {
      const r = await t.req('POST', '/v1/users', { token: tokens.owner.full, body: { email, name: email } })
      assert.equal(r.status, 201, `${email}: ${r.text}`)
      assert.equal(r.body.user.email, email)
    }
    for (const email of ['carol', 'carol@', '@localhost', 'ca rol@localhost', 'carol@local host', 'carol@-host', 'carol@host.', 'a@b@c']) {
      const r = await t.req('POST', '/v1/users', { token: tokens.owner.full, body: { email, name: 'X' } })
      assert.equal(r.status, 422, `${email}: ${r.text}`)
      assert.equal(r.body.error.details[0].path, 'email')
      assert.match(r.body.error.details[0].message, /a name, @ and a host/)
    }
    const target = db.databaseUrl ?? db.db
    const made = await runCli(['user', 'create', '--db', target, '--email', 'carol@localhost', '--name', 'Carol'], db.env)
    assert.equal(made.status, 0, made.stderr)
    assert.match(made.stdout, /^[a-z0-9]{16}\n$/)
    const refused = await runCli(['user', 'create', '--db', target, '--email', 'carol', '--name', 'Carol'], db.env)
    assert.equal(refused.status, 1)
    assert.match(refused.stderr, /\n {2}--email must be an address with a name, @ and a host/)
  } finally {
    await t.close()
    await db.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
