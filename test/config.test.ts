// The configuration: which database it names (flags over environment, a postgres:// URL in either place), trusted proxies.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadConfig } from '../src/config.js'

const URL_A = 'postgres://taskd:x@127.0.0.1:5432/a'

test('TASKD_DATABASE_URL picks PostgreSQL; an explicit --db file wins over it; --db may be a postgres:// URL', () => {
  assert.equal(loadConfig({}, {}).databaseUrl, undefined, 'SQLite by default')
  assert.equal(loadConfig({}, {}).db, './data/taskd.db')
  assert.equal(loadConfig({}, { TASKD_DATABASE_URL: URL_A }).databaseUrl, URL_A)
  assert.equal(loadConfig({ db: '/tmp/x.db' }, { TASKD_DATABASE_URL: URL_A }).databaseUrl, undefined, 'the flag wins')
  assert.equal(loadConfig({ db: URL_A }, {}).databaseUrl, URL_A)
  assert.equal(loadConfig({}, { TASKD_DB: URL_A }).databaseUrl, URL_A)
  assert.throws(() => loadConfig({}, { TASKD_DATABASE_URL: 'mysql://127.0.0.1/x' }), /TASKD_DATABASE_URL must start with postgres:\/\//)
  assert.equal(loadConfig({}, { TASKD_DB_POOL_SIZE: '4' }).dbPoolSize, 4)
})

test('TASKD_TRUST_PROXY: addresses, CIDR ranges and loopback; anything else is refused with a readable error', () => {
  assert.deepEqual(loadConfig({}, {}).trustProxy, [], 'no proxy trusted by default')
  assert.deepEqual(loadConfig({}, { TASKD_TRUST_PROXY: 'loopback, 10.0.0.0/8,192.168.1.1, fd00::1' }).trustProxy, [
    '127.0.0.0/8',
    '::1/128',
    '10.0.0.0/8',
    '192.168.1.1/32',
    'fd00::1/128',
  ])
  assert.throws(() => loadConfig({}, { TASKD_TRUST_PROXY: 'nginx' }), /TASKD_TRUST_PROXY: "nginx" is not an address, a CIDR range or loopback/)
})
