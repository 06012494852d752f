// The secret box: AES-256-GCM round trips bound to their context, and where the master key comes from.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { keyFileFor, loadSecretBox, parseMasterKey, SecretBox } from '../../src/crypto.js'

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-crypto-'))

test('seal/open round-trips, is randomised, and refuses another context or a tampered value', () => {
  const box = new SecretBox(crypto.randomBytes(32))
  const a = box.seal('hunter2 ✓', 'webhook:a:secret')
  assert.notEqual(a, box.seal('hunter2 ✓', 'webhook:a:secret'), 'a fresh IV every time')
  assert.ok(!a.includes('hunter2'))
  assert.equal(box.open(a, 'webhook:a:secret'), 'hunter2 ✓')
  assert.throws(() => box.open(a, 'webhook:b:secret'), 'a value copied to another row does not open')
  const raw = Buffer.from(a.slice(3), 'base64url')
  raw[raw.length - 1] ^= 1
  assert.throws(() => box.open(`v1.${raw.toString('base64url')}`, 'webhook:a:secret'))
  assert.throws(() => new SecretBox(crypto.randomBytes(32)).open(a, 'webhook:a:secret'), 'another key does not open it')
  assert.throws(() => new SecretBox(Buffer.alloc(16)))
})

test('TASKD_MASTER_KEY as hex or base64; anything else is refused with a readable error', () => {
  const key = crypto.randomBytes(32)
  const sealed = new SecretBox(key).seal('x', 'c')
  for (const text of [key.toString('hex'), key.toString('base64'), key.toString('base64url'), ` ${key.toString('hex')}\n`]) {
    assert.equal(loadSecretBox('/nonexistent/dir/db', text).open(sealed, 'c'), 'x', text)
  }
  assert.deepEqual(parseMasterKey(key.toString('hex')), key)
  for (const bad of ['short', crypto.randomBytes(31).toString('base64'), 'zz'.repeat(32)]) {
    assert.throws(() => parseMasterKey(bad), /TASKD_MASTER_KEY must be 32 bytes/)
  }
})

test('without TASKD_MASTER_KEY a 0600 key file is created beside the database and reused', () => {
  const dir = tmp()
  try {
    const db = path.join(dir, 'taskd.db')
    const sealed = loadSecretBox(db).seal('kept', 'c')
    const stat = fs.statSync(keyFileFor(db))
    assert.equal(stat.mode & 0o777, 0o600)
    assert.equal(loadSecretBox(db).open(sealed, 'c'), 'kept', 'the same key after a restart')
    fs.writeFileSync(keyFileFor(db), 'garbage\n')
    assert.throws(() => loadSecretBox(db), /cannot use the key file/)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test(':memory: gets a process-local key and writes no file', () => {
  const box = loadSecretBox(':memory:')
  assert.equal(box.open(box.seal('m', 'c'), 'c'), 'm')
  assert.ok(!fs.existsSync(':memory:.key'))
})

test('on PostgreSQL (no database file) TASKD_MASTER_KEY is required, with a readable error', () => {
  assert.throws(() => loadSecretBox(undefined), /TASKD_MASTER_KEY is required on PostgreSQL/)
  const key = crypto.randomBytes(32).toString('hex')
  assert.equal(loadSecretBox(undefined, key).open(loadSecretBox(undefined, key).seal('x', 'c'), 'c'), 'x')
})
