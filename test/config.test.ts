// Which database the configuration names: flags over environment, a postgres:// URL in either place.
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
