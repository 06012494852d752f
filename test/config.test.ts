// The configuration: which database it names (flags over environment, a postgres:// URL in either place), trusted proxies,
// the config file (taskd.toml or taskd.json beside the database, or named) under the environment, and readable errors.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { loadConfig } from '../src/config.js'
import { runCli } from './helpers/cli.js'
import { serve, type Served } from './helpers/serve.js'

const URL_A = 'postgres://taskd:x@127.0.0.1:5432/a'

test('TASKD_DATABASE_URL picks PostgreSQL; an explicit --db file wins over it; --db may be a postgres:// URL', () => {
  assert.equal(loadConfig({}, {}).databaseUrl, undefined, 'SQLite by default')
  assert.equal(loadConfig({}, {}).db, './data/taskd.db')
  assert.equal(loadConfig({}, { TASKD_DATABASE_URL: URL_A }).databaseUrl, URL_A)
  assert.equal(loadConfig({ db: '/tmp/x.db' }, { TASKD_DATABASE_URL: URL_A }).databaseUrl, undefined, 'the flag wins')
  assert.equal(loadConfig({ db: URL_A }, {}).databaseUrl, URL_A)
  assert.equal(loadConfig({}, { TASKD_DB: URL_A }).databaseUrl, URL_A)
  assert.throws(() => loadConfig({}, { TASKD_DATABASE_URL: 'mysql://127.0.0.1/x' }), /TASKD_DATABASE_URL: must start with postgres:\/\//)
  assert.equal(loadConfig({}, { TASKD_DB_POOL_SIZE: '4' }).dbPoolSize, 4)
  assert.equal(loadConfig({}, {}).dbPrepare, 'auto')
  assert.equal(loadConfig({}, { TASKD_DB_PREPARE: 'off' }).dbPrepare, 'off')
  assert.throws(() => loadConfig({}, { TASKD_DB_PREPARE: 'maybe' }), /TASKD_DB_PREPARE/)
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

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-config-'))
}

test('a taskd.toml beside the database sets what flags and environment leave unset; taskd.json works the same', () => {
  const dir = tempDir()
  try {
    const db = path.join(dir, 'taskd.db')
    fs.writeFileSync(
      path.join(dir, 'taskd.toml'),
      'port = 9090\nhost = "0.0.0.0"\nrate_limit = "on"\nbase_url = "https://tasks.example.test"\nwebhook_retry_delays = [1, 2, 3]\nallow_private_targets = true\n',
    )
    const c = loadConfig({ db }, {})
    assert.equal(c.port, 9090)
    assert.equal(c.host, '0.0.0.0')
    assert.equal(c.rateLimit, 600, 'rate_limit = "on" is 600 a minute')
    assert.equal(c.baseUrl, 'https://tasks.example.test')
    assert.deepEqual(c.webhookRetryDelays, [1, 2, 3])
    assert.equal(c.allowPrivateTargets, true)
    assert.equal(c.configFile, path.join(dir, 'taskd.toml'), 'the config says which file it read')
    assert.equal(loadConfig({}, {}).configFile, undefined)
    assert.equal(loadConfig({ db }, { TASKD_PORT: '7070' }).port, 7070, 'the environment wins over the file')
    assert.equal(loadConfig({ db, port: '6060' }, { TASKD_PORT: '7070' }).port, 6060, 'a flag wins over both')
    assert.equal(loadConfig({ db }, { TASKD_RATE_LIMIT: 'off' }).rateLimit, 0)
    assert.equal(loadConfig({ db: path.join(dir, 'elsewhere', 'taskd.db') }, {}).port, 8080, 'only the file beside the database counts')

    fs.renameSync(path.join(dir, 'taskd.toml'), path.join(dir, 'taskd.json'))
    fs.writeFileSync(path.join(dir, 'taskd.json'), JSON.stringify({ port: 9191, rate_limit: 120 }))
    assert.equal(loadConfig({ db }, {}).port, 9191)
    assert.equal(loadConfig({ db }, {}).rateLimit, 120)

    const named = path.join(dir, 'other.toml')
    fs.writeFileSync(named, 'port = 9292\ndb = "/srv/taskd/taskd.db"\n')
    assert.equal(loadConfig({ db, config: named }, {}).port, 9292, '--config names the file (taskd.json beside is then ignored)')
    assert.equal(loadConfig({}, { TASKD_CONFIG: named }).db, '/srv/taskd/taskd.db', 'a named file may name the database')
    assert.equal(loadConfig({ db: ':memory:' }, {}).port, 8080)
    assert.equal(loadConfig({}, {}).rateLimit, 0, 'without a config the API rate limit is off')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('config errors name the setting as its source spells it: the file and key, the variable, or the flag', () => {
  const dir = tempDir()
  try {
    const db = path.join(dir, 'taskd.db')
    const toml = path.join(dir, 'taskd.toml')
    const refused = (content: string, re: RegExp, env: NodeJS.ProcessEnv = {}) => {
      fs.writeFileSync(toml, content)
      assert.throws(() => loadConfig({ db }, env), re, content)
    }
    refused('port = 70000\n', new RegExp(`invalid configuration: ${toml.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: port: `))
    refused('prot = 8080\n', /taskd\.toml: unknown key "prot" \(known keys: port, host, /)
    refused('rate_limit = "sometimes"\n', /taskd\.toml: rate_limit: must be on, off or a number of requests per minute/)
    refused('log_format = "xml"\n', /taskd\.toml: log_format: /)
    refused('trust_proxy = ["nginx"]\n', /taskd\.toml: trust_proxy: "nginx" is not an address/)
    refused('port = \n', /taskd\.toml: Invalid TOML document: .* at line 1, column /)
    refused('master_key = "abc"\n', /taskd\.toml: master_key: must be 32 bytes written as 64 hex characters or base64/)
    // A file that does not parse is reported by position, never quoted: it may hold secrets.
    fs.writeFileSync(toml, 'master_key = s3cretvalue0123\n')
    assert.throws(
      () => loadConfig({ db }, {}),
      (err: Error) => /at line 1, column/.test(err.message) && !err.message.includes('s3cret'),
    )
    refused('[port]\nvalue = 1\n', /taskd\.toml: port: must be a string, a number, true\/false or a list of them/)
    refused('db = "/elsewhere.db"\n', /taskd\.toml: db: a config file beside the database cannot name another database; use --config/)
    refused('port = 1\n', /TASKD_PORT: /, { TASKD_PORT: 'abc' })
    fs.writeFileSync(path.join(dir, 'taskd.json'), '{}')
    assert.throws(() => loadConfig({ db }, {}), /both .*taskd\.toml and .*taskd\.json exist; keep one/)
    fs.rmSync(toml)
    fs.writeFileSync(path.join(dir, 'taskd.json'), '{"ai_key": s3cretvalue0123}')
    assert.throws(
      () => loadConfig({ db }, {}),
      (err: Error) => /taskd\.json: not valid JSON/.test(err.message) && !err.message.includes('s3cret'),
    )
    assert.throws(() => loadConfig({ db, config: path.join(dir, 'missing.toml') }, {}), /missing\.toml: no such file/)
    assert.throws(() => loadConfig({ port: '-1' }, {}), /--port: /)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('serve stops at once with the readable config error and exit code 1, before touching the database', async () => {
  const dir = tempDir()
  try {
    fs.writeFileSync(path.join(dir, 'taskd.toml'), 'port = "eighty"\n')
    const db = path.join(dir, 'taskd.db')
    const result = await runCli(['serve', '--db', db])
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^taskd: invalid configuration: .*taskd\.toml: port: /)
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace')
    assert.equal(fs.existsSync(db), false, 'no database was created')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('serve reads the taskd.toml that setup wrote: the API rate limit is on with it, off without it', async () => {
  const dir = tempDir()
  const servers: Served[] = []
  const limitOf = async (db: string) => {
    const server = await serve(db)
    servers.push(server)
    const me = await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${server.token}` } })
    assert.equal(me.status, 200)
    await server.stop()
    return me.headers.get('ratelimit-limit')
  }
  try {
    assert.equal(await limitOf(path.join(dir, 'bare', 'taskd.db')), null, 'serve without a config: no rate limit')
    const db = path.join(dir, 'setup', 'taskd.db')
    const setup = await runCli(['setup', '--db', db])
    assert.equal(setup.status, 0, setup.stderr)
    assert.equal(await limitOf(db), '600', 'after setup: 600 requests a minute per token')
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
