// Operations commands as child processes on SQLite files: backup while a server takes writes, restore (refused while
// the server runs, and for files that are not sound taskd databases), setup's config file, and doctor's checks.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { parse as parseToml } from 'smol-toml'
import { SCHEMA_VERSION } from '../../src/db/migrate.js'
import { openDatabase } from '../../src/db/open.js'
import { runCli } from '../helpers/cli.js'
import { freshDatabase } from '../helpers/database.js'
import { dbGet, dbRun } from '../helpers/db.js'
import { serve, type Served } from '../helpers/serve.js'
import { startReceiver } from '../webhooks/fixtures.js'

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-ops-'))
const mode = (file: string) => fs.statSync(file).mode & 0o777
const countCards = (file: string) => {
  const db = new Database(file, { readonly: true })
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok')
    return (db.prepare('SELECT count(*) AS n FROM cards').get() as { n: number }).n
  } finally {
    db.close()
  }
}

test('backup while cards are being created: the copy passes integrity_check and has the rows; restore is refused while the server runs', async () => {
  const dir = tempDir()
  const db = path.join(dir, 'taskd.db')
  const dest = path.join(dir, 'backups', 'copy.db')
  let server: Served | undefined
  let writing = true
  let writer: Promise<void> | undefined
  try {
    server = await serve(db)
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }
    const post = (url: string, body: unknown) => fetch(`${server!.url}${url}`, { method: 'POST', headers, body: JSON.stringify(body) })
    const board = (await (await post('/v1/boards', { name: 'Busy' })).json()).board
    let made = 0
    let reached!: () => void
    const twenty = new Promise<void>((resolve) => (reached = resolve))
    writer = (async () => {
      while (writing) {
        const r = await post('/v1/cards', { board: board.id, title: `card ${made}`, description: 'x'.repeat(2000) })
        assert.equal(r.status, 201)
        if (++made === 20) reached()
      }
    })()
    await twenty
    const before = made
    const backup = await runCli(['backup', '--db', db, dest])
    const after = made
    writing = false
    await writer
    assert.equal(backup.status, 0, backup.stderr)
    assert.ok(after > before, 'cards were created while the backup ran')
    const n = countCards(dest)
    assert.ok(n >= before && n <= after, `${n} cards in the copy, ${before}..${after} made around it`)
    assert.equal(mode(dest), 0o600)
    // Not a terminal: a plain line at each 10% step. A copy that starts over (SQLite's backup does when another
    // connection writes mid-copy) shows "backup: started over"; this one reads one snapshot, so the writes never restart it.
    assert.equal(backup.stderr, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((p) => `backup: ${p}%\n`).join(''))
    console.log(`backup while writing: ${after - before} cards created during it`)
    // The key file goes with the copy, owner-only.
    assert.equal(fs.readFileSync(`${dest}.key`, 'utf8'), fs.readFileSync(`${db}.key`, 'utf8'))
    assert.equal(mode(`${dest}.key`), 0o600)
    assert.match(backup.stdout, /key file copied to .*copy\.db\.key/)

    const refused = await runCli(['restore', '--db', db, dest])
    assert.equal(refused.status, 1)
    assert.match(refused.stderr, new RegExp(`^taskd: taskd \\(pid ${server.child.pid}\\) is using .*: stop that server first\\n$`))
    assert.equal((await fetch(`${server.url}/v1/users/me`, { headers })).status, 200, 'the server is untouched')
    await server.stop()
    assert.ok(!fs.existsSync(`${db}.pid`), 'a stopped server removes its pid file')

    // A pid file a killed server left behind (its process is gone) does not stand in the way.
    const gone = spawn(process.execPath, ['-e', ''])
    await new Promise((resolve) => gone.once('exit', resolve))
    fs.writeFileSync(`${db}.pid`, `${gone.pid}\n`)
    fs.writeFileSync(`${db}.key`, 'another key\n') // restore puts the backup's key back
    const restored = await runCli(['restore', '--db', db, dest])
    assert.equal(restored.status, 0, restored.stderr)
    assert.equal(countCards(db), n)
    assert.equal(mode(db), 0o600)
    assert.equal(fs.readFileSync(`${db}.key`, 'utf8'), fs.readFileSync(`${dest}.key`, 'utf8'))
    server = await serve(db)
    const list = await fetch(`${server.url}/v1/cards?per_page=1`, { headers })
    assert.equal(list.status, 200, 'the setup token of the backup works on the restored database')
    assert.equal((await list.json()).totalItems, n)
  } finally {
    writing = false
    await writer?.catch(() => {})
    await server?.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

const fingerprint = (file: string) => ({ sha256: crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'), mtime: fs.statSync(file).mtimeMs })

test('backup opens the database read-only: an older schema is copied as it is (not migrated), and no file it copies is written', async () => {
  const dir = tempDir()
  try {
    // A database of schema version 1 (as people back up before an upgrade), in SQLite's default rollback-journal mode.
    const old = path.join(dir, 'old.db')
    const v1 = new Database(old)
    v1.exec(fs.readFileSync(path.resolve('test/fixtures/schema-v1.sql'), 'utf8'))
    v1.exec(`INSERT INTO users (id, email, name, role, kind, created_at) VALUES ('u1', 'a@x.test', 'A', 'owner', 'human', '2026-01-01T00:00:00.000Z')`)
    v1.pragma('user_version = 1')
    v1.close()
    // And a current one, made by a command.
    const current = path.join(dir, 'current.db')
    assert.equal((await runCli(['user', 'create', '--db', current, '--email', 'a@example.test', '--name', 'A'])).status, 0)
    for (const [src, version] of [
      [old, 1],
      [current, SCHEMA_VERSION],
    ] as const) {
      const before = fingerprint(src)
      const dest = path.join(dir, 'backups', `${path.basename(src)}.bak`)
      const r = await runCli(['backup', '--db', src, dest])
      assert.equal(r.status, 0, r.stderr)
      assert.deepEqual(fingerprint(src), before, `${src}: neither its bytes nor its modification time changed`)
      const copy = new Database(dest, { readonly: true })
      try {
        assert.equal(copy.pragma('user_version', { simple: true }), version, 'the copy has the schema version of the original')
        assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok')
        const keyPrefixes = copy.prepare("SELECT 1 FROM sqlite_master WHERE name = 'key_prefixes'").get()
        assert.equal(Boolean(keyPrefixes), version > 1, 'a table a later migration adds is in the copy only when it was in the original')
        assert.equal((copy.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n, 1)
      } finally {
        copy.close()
      }
      if (version !== SCHEMA_VERSION)
        assert.match(r.stdout, new RegExp(`schema version 1 \\(this taskd's is ${SCHEMA_VERSION}\\); it was copied as it is, not migrated`))
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('restore refuses what is not a sound taskd database, and the database stays as it was; backup on PostgreSQL points to pg_dump', async () => {
  const dir = tempDir()
  const db = path.join(dir, 'taskd.db')
  try {
    assert.equal((await runCli(['user', 'create', '--db', db, '--email', 'a@example.test', '--name', 'A'])).status, 0)
    const text = path.join(dir, 'notes.txt')
    fs.writeFileSync(text, 'not a database at all, but long enough to look like a file header')
    const newer = path.join(dir, 'newer.db')
    const n = new Database(newer)
    n.exec('CREATE TABLE workspace (id TEXT)')
    n.pragma('user_version = 999')
    n.close()
    const cases: [string, RegExp][] = [
      [text, /is not a taskd database/],
      [newer, /is at schema version 999, newer than this taskd's \d+: upgrade taskd first/],
      [path.join(dir, 'missing.db'), /no backup at .*missing\.db/],
    ]
    for (const [src, reason] of cases) {
      const r = await runCli(['restore', '--db', db, src])
      assert.equal(r.status, 1, src)
      assert.match(r.stderr, reason)
      assert.equal(r.stderr.split('\n').length, 2, 'one line')
    }
    const check = new Database(db, { readonly: true })
    assert.equal((check.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n, 1)
    check.close()
    const pg = await runCli(['backup', '--db', 'postgres://taskd@127.0.0.1:1/taskd', path.join(dir, 'x.dump')])
    assert.equal(pg.status, 1)
    assert.match(pg.stderr, /^taskd: .*on PostgreSQL use pg_dump --format=custom --file=.*x\.dump "\$TASKD_DATABASE_URL"/)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('restore refuses a backup holding schema objects taskd does not create (a trigger, a view, an altered table or index), and restores nothing', async () => {
  const dir = tempDir()
  const db = path.join(dir, 'taskd.db')
  const backup = path.join(dir, 'good.db')
  const schemaOf = (file: string) => {
    const raw = new Database(file, { readonly: true })
    try {
      return raw.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all()
    } finally {
      raw.close()
    }
  }
  try {
    for (const [email, role] of [
      ['owner@example.test', 'owner'],
      ['mallory@example.test', 'member'],
    ])
      assert.equal((await runCli(['user', 'create', '--db', db, '--email', email, '--name', email, '--role', role])).status, 0)
    assert.equal((await runCli(['backup', '--db', db, backup])).status, 0)
    // The database to protect: one user more than the backup, so a restore would show.
    assert.equal((await runCli(['user', 'create', '--db', db, '--email', 'late@example.test', '--name', 'Late'])).status, 0)
    const before = schemaOf(db)
    const crafted = (name: string, sql: string, writable = false) => {
      const file = path.join(dir, `${name}.db`)
      fs.copyFileSync(backup, file)
      const raw = new Database(file)
      if (writable) {
        raw.unsafeMode(true) // lets writable_schema edit the stored definitions, as an attacker's own SQLite would
        raw.pragma('writable_schema = ON')
      }
      raw.exec(sql)
      raw.close()
      return file
    }
    const cases: [string, RegExp][] = [
      [
        crafted('trigger', `CREATE TRIGGER promote AFTER INSERT ON cards BEGIN UPDATE users SET role = 'owner' WHERE email = 'mallory@example.test'; END`),
        /holds schema objects taskd does not create \(trigger promote\); nothing was restored/,
      ],
      [crafted('view', 'CREATE VIEW every_token AS SELECT * FROM tokens'), /holds schema objects taskd does not create \(view every_token\)/],
      [crafted('table', 'CREATE TABLE notes_of_mine (id TEXT)'), /holds schema objects taskd does not create \(table notes_of_mine\)/],
      [
        crafted('column', 'ALTER TABLE users ADD COLUMN is_root INTEGER DEFAULT 1'),
        /has a schema taskd does not create \(table users \(defined differently\)\)/,
      ],
      [
        // A new user becomes an owner unless told otherwise: the stored definition edited in place.
        crafted(
          'default',
          `UPDATE sqlite_master SET sql = replace(sql, 'role TEXT NOT NULL CHECK', 'role TEXT NOT NULL DEFAULT ''owner'' CHECK') WHERE name = 'users'`,
          true,
        ),
        /table users \(defined differently\)/,
      ],
      [
        crafted('check', `UPDATE sqlite_master SET sql = replace(sql, 'CHECK (role IN (''owner'', ''admin'', ''member''))', '') WHERE name = 'users'`, true),
        /table users \(defined differently\)/,
      ],
      [crafted('index', 'DROP INDEX users_email_lower; CREATE INDEX users_email_lower ON users(name)'), /index users_email_lower \(defined differently\)/],
      [crafted('missing', 'DROP INDEX users_email_lower'), /index users_email_lower \(missing\)/],
    ]
    for (const [src, reason] of cases) {
      const r = await runCli(['restore', '--db', db, src])
      assert.equal(r.status, 1, `${src}: ${r.stdout}`)
      assert.match(r.stderr, reason)
      assert.equal(r.stderr.split('\n').length, 2, 'one line')
      assert.deepEqual(schemaOf(db), before, 'the database is as it was')
      const check = new Database(db, { readonly: true })
      assert.equal((check.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n, 3, 'nothing was restored')
      check.close()
      assert.deepEqual(
        fs.readdirSync(dir).filter((f) => f.includes('.restore-')),
        [],
        'no partial copy is left',
      )
    }
    // The backup as taskd made it restores, and so does one of the first schema version (migrated as it is restored).
    const good = await runCli(['restore', '--db', db, backup])
    assert.equal(good.status, 0, good.stderr)
    const v1 = path.join(dir, 'v1.db')
    const old = new Database(v1)
    old.exec(fs.readFileSync(path.resolve('test/fixtures/schema-v1.sql'), 'utf8'))
    old.pragma('user_version = 1')
    old.close()
    const migrated = await runCli(['restore', '--db', db, v1])
    assert.equal(migrated.status, 0, migrated.stderr)
    assert.match(migrated.stdout, new RegExp(`schema at version ${SCHEMA_VERSION}`))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('setup writes taskd.toml (rate limit on) owner-only beside a new database, refuses to overwrite it without --force; doctor then passes', async () => {
  const dir = tempDir()
  const db = path.join(dir, 'data', 'taskd.db')
  const file = path.join(dir, 'data', 'taskd.toml')
  try {
    const r = await runCli(['setup', '--db', db, '--base-url', 'https://tasks.example.com', '--port', '9090'])
    assert.equal(r.status, 0, r.stderr)
    assert.deepEqual(
      { ...parseToml(fs.readFileSync(file, 'utf8')) },
      { host: '127.0.0.1', port: 9090, base_url: 'https://tasks.example.com', rate_limit: 'on' },
    )
    assert.equal(mode(file), 0o600)
    assert.equal(mode(`${db}.key`), 0o600)
    assert.match(r.stdout, /next: taskd serve --db /)
    const written = fs.readFileSync(file, 'utf8')
    const again = await runCli(['setup', '--db', db, '--port', '7070'])
    assert.equal(again.status, 1)
    assert.match(again.stderr, /taskd\.toml exists; run again with --force/)
    assert.equal(fs.readFileSync(file, 'utf8'), written)
    const bad = await runCli(['setup', '--db', db, '--force', '--base-url', 'not a url'])
    assert.equal(bad.status, 1)
    assert.equal(fs.readFileSync(file, 'utf8'), written, 'a refused value leaves the file as it was')
    // Settings setup does not write itself (here a metrics token) survive --force.
    fs.writeFileSync(file, `${written}metrics_token = "m3trics-token-0123456789"\n`)
    assert.equal((await runCli(['setup', '--db', db, '--force', '--port', '7070'])).status, 0)
    assert.deepEqual(
      { ...parseToml(fs.readFileSync(file, 'utf8')) },
      { host: '127.0.0.1', port: 7070, base_url: 'https://tasks.example.com', rate_limit: 'on', metrics_token: 'm3trics-token-0123456789' },
    )
    assert.equal(mode(file), 0o600)

    const doctor = await runCli(['doctor', '--db', db])
    assert.equal(doctor.status, 0, doctor.stdout)
    const lines = doctor.stdout.trim().split('\n')
    assert.deepEqual(
      lines.map((l) => l.slice(0, 4)),
      ['ok  ', 'ok  ', 'ok  ', 'ok  ', 'ok  '],
    )
    assert.match(lines[0], /database: .* passes quick_check, schema at version \d+/)
    assert.match(lines[2], /^ok {2}config file: .*taskd\.toml, owner-only$/)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('doctor says what to fix: no database (not created), a key file others can read, no base URL on a public host', async () => {
  const dir = tempDir()
  const db = path.join(dir, 'taskd.db')
  try {
    const missing = await runCli(['doctor', '--db', db])
    assert.equal(missing.status, 1)
    assert.match(missing.stdout, /^fix database: no database at .*: run taskd setup/m)
    assert.ok(!fs.existsSync(db), 'doctor creates nothing')

    assert.equal((await runCli(['migrate', '--db', db])).status, 0)
    fs.writeFileSync(`${db}.key`, `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o644 })
    fs.chmodSync(`${db}.key`, 0o644)
    const r = await runCli(['doctor', '--db', db], { TASKD_HOST: '0.0.0.0' })
    assert.equal(r.status, 1)
    assert.match(r.stdout, /^ok {2}database: /m)
    assert.match(r.stdout, /^fix master key: .* is readable by others \(mode 644\): chmod 600 /m)
    assert.match(r.stdout, /^fix base URL: unset while serving on 0\.0\.0\.0: set TASKD_BASE_URL/m)
    const http = await runCli(['doctor', '--db', db], { TASKD_BASE_URL: 'http://tasks.example.com' })
    assert.match(http.stdout, /^fix base URL: http:\/\/tasks\.example\.com is plain http/m)
    assert.doesNotMatch(http.stdout, /config file/, 'no config file, no line about it')

    // A config file may hold master_key, ai_key and metrics_token: the one beside the database, or the one named.
    const beside = path.join(dir, 'taskd.toml')
    fs.writeFileSync(beside, 'port = 8080\n')
    fs.chmodSync(beside, 0o644)
    assert.match((await runCli(['doctor', '--db', db])).stdout, /^fix config file: .*taskd\.toml is readable by others \(mode 644\): chmod 600 .*taskd\.toml$/m)
    const named = path.join(dir, 'elsewhere.json')
    fs.writeFileSync(named, '{"port": 8080}')
    fs.chmodSync(named, 0o640)
    for (const run of [() => runCli(['doctor', '--db', db, '--config', named]), () => runCli(['doctor', '--db', db], { TASKD_CONFIG: named })])
      assert.match((await run()).stdout, /^fix config file: .*elsewhere\.json is readable by others \(mode 640\): chmod 600 /m)
    fs.chmodSync(named, 0o600)
    assert.match((await runCli(['doctor', '--db', db, '--config', named])).stdout, /^ok {2}config file: .*elsewhere\.json, owner-only$/m)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('doctor reads the schema version without migrating (on the test dialect): too old and too new are fixes, and stay as they were', async () => {
  const dir = tempDir()
  const d = await freshDatabase(dir)
  const db = await openDatabase({ db: d.db, databaseUrl: d.databaseUrl, readWorkers: 0 })
  const setVersion = (v: number) => dbRun(db, db.dialect === 'postgres' ? `UPDATE schema_version SET version = ${v}` : `PRAGMA user_version = ${v}`)
  const stored = async () =>
    Number(
      (await dbGet<{ version: number }>(
        db,
        db.dialect === 'postgres' ? 'SELECT version FROM schema_version' : 'SELECT user_version AS version FROM pragma_user_version()',
      ))!.version,
    )
  try {
    const cases: [number, RegExp][] = [
      [1, new RegExp(`^fix database: schema version 1, this taskd needs ${SCHEMA_VERSION}: run taskd migrate$`, 'm')],
      [SCHEMA_VERSION + 1, new RegExp(`^fix database: schema version ${SCHEMA_VERSION + 1} is newer than this taskd .*: upgrade taskd$`, 'm')],
      [SCHEMA_VERSION, new RegExp(`^ok {2}database: .*schema at version ${SCHEMA_VERSION}$`, 'm')],
    ]
    for (const [version, line] of cases) {
      await setVersion(version)
      const r = await runCli(['doctor', '--db', d.databaseUrl ?? d.db], d.env)
      assert.match(r.stdout, line, r.stderr)
      assert.equal(await stored(), version, 'doctor changed nothing')
    }
  } finally {
    await db.close()
    await d.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('doctor --webhook-url sends a test POST through the webhook sender; a loopback receiver is refused before sending unless private targets are allowed', async () => {
  const dir = tempDir()
  const db = path.join(dir, 'taskd.db')
  const receiver = await startReceiver()
  try {
    assert.equal((await runCli(['setup', '--db', db])).status, 0)
    const refused = await runCli(['doctor', '--db', db, '--webhook-url', `${receiver.url}/ok`])
    assert.equal(refused.status, 1)
    assert.match(refused.stdout, /^fix webhooks: http:\/\/127\.0\.0\.1:\d+\/ok was refused before sending .*TASKD_ALLOW_PRIVATE_TARGETS=true/m)
    assert.equal(receiver.hits.length, 0, 'nothing was sent')

    const reached = await runCli(['doctor', '--db', db, '--webhook-url', `${receiver.url}/ok`], { TASKD_ALLOW_PRIVATE_TARGETS: 'true' })
    assert.equal(reached.status, 0, reached.stdout)
    assert.match(reached.stdout, /^ok {2}webhooks: a test POST to .* answered 200$/m)
    assert.equal(receiver.hits.length, 1)
    assert.equal(receiver.hits[0].method, 'POST')
    assert.equal(receiver.hits[0].json.type, 'taskd.doctor')

    const failing = await runCli(['doctor', '--db', db, '--webhook-url', `${receiver.url}/status/503`], { TASKD_ALLOW_PRIVATE_TARGETS: 'true' })
    assert.equal(failing.status, 1)
    assert.match(failing.stdout, /^fix webhooks: a test POST to .* failed: 503/m)
  } finally {
    await receiver.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
