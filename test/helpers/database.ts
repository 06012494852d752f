// The database a test runs on: a fresh SQLite file, or, when TASKD_TEST_DATABASE_URL is set (npm test sets it for its
// PostgreSQL run), a fresh PostgreSQL database copied from a template that already has the schema; or a copy of a
// filled template (see filledTemplate), so that a test starts with its data instead of making it.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { SCHEMA_VERSION } from '../../src/db/migrate.js'
import { openDatabase } from '../../src/db/open.js'

const adminUrl = process.env.TASKD_TEST_DATABASE_URL || undefined
export const testDialect: 'sqlite' | 'postgres' = adminUrl ? 'postgres' : 'sqlite'
// On PostgreSQL taskd needs TASKD_MASTER_KEY (there is no database file to keep a key file beside): the same in every
// test process, since a filled template one process made is copied by the others.
const masterKey = crypto.createHash('sha256').update('taskd test master key').digest('hex')
if (adminUrl) process.env.TASKD_MASTER_KEY ??= masterKey

export interface TestDatabase {
  /** The SQLite file (on PostgreSQL too: the key file lives beside it). */
  db: string
  /** The PostgreSQL database, when the tests run on PostgreSQL (through PgBouncer when TASKD_TEST_POOLER_URL is set). */
  databaseUrl?: string
  /** Behind PgBouncer: the database directly, for the LISTEN connection. */
  databaseDirectUrl?: string
  /** For a `taskd` child process: where its database is. */
  env: Record<string, string>
  /** Drops the PostgreSQL database (a no-op on SQLite; the caller removes the folder). */
  drop(): Promise<void>
}

const urlFor = (name: string, base = adminUrl!) => {
  const u = new URL(base)
  u.pathname = `/${name}`
  return u.toString()
}
/** A PgBouncer in transaction pooling mode in front of the test cluster (scripts/test-postgres.sh pooler): taskd's queries go through it. */
const poolerUrl = process.env.TASKD_TEST_POOLER_URL || undefined

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl })
  await c.connect()
  try {
    return await fn(c)
  } finally {
    await c.end()
  }
}

const schemaHash = crypto
  .createHash('sha1')
  .update(fs.readFileSync(fileURLToPath(new URL('../../../schema.pg.sql', import.meta.url))))
  .update(String(SCHEMA_VERSION))
  .digest('hex')
  .slice(0, 12)
const template = `taskd_tpl_${schemaHash}`
let templateReady: Promise<void> | undefined

/** The template database with the current schema, made once per cluster (test processes take turns through a lock). */
const ensureTemplate = () =>
  (templateReady ??= admin(async (c) => {
    await c.query('SELECT pg_advisory_lock(7461)')
    try {
      const exists = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [template])
      if (exists.rowCount) return
      // A run cut short may have left a half-made template behind.
      await c.query(`DROP DATABASE IF EXISTS ${template}_new`)
      await c.query(`CREATE DATABASE ${template}_new TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`)
      const db = await openDatabase({ db: '', databaseUrl: urlFor(`${template}_new`) })
      await db.close()
      await c.query(`ALTER DATABASE ${template}_new RENAME TO ${template}`)
    } finally {
      await c.query('SELECT pg_advisory_unlock(7461)')
    }
  }))

/** A filled template: where its copies come from, and the note its filling returned (what a test needs to know of it). */
export interface Template {
  /** SQLite: the template's file; PostgreSQL: its database name. */
  source: string
  note: string
}

/** Where this process keeps its SQLite templates; removed when it exits. */
let sqliteTemplates: string | undefined
const sqliteTemplateDir = () => {
  if (!sqliteTemplates) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-tpl-'))
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))
    sqliteTemplates = dir
  }
  return sqliteTemplates
}

const filled = new Map<string, Promise<Template>>()

/**
 * A template holding what `fill` puts into a fresh database (through the app, as a test would), made once: per test
 * process on SQLite, per cluster on PostgreSQL (under the lock; the note is the database's comment). `key` names the
 * filling: a different filling needs a different key, or a cluster keeps the old one.
 */
export const filledTemplate = (key: string, fill: (database: TestDatabase) => Promise<string>): Promise<Template> => {
  let made = filled.get(key)
  if (!made) {
    made = adminUrl ? filledPostgres(`${template}_${key}`, fill) : filledSqlite(key, fill)
    filled.set(key, made)
  }
  return made
}

async function filledSqlite(key: string, fill: (database: TestDatabase) => Promise<string>): Promise<Template> {
  // Shared by the run's test processes when scripts/test.sh gives them a folder (TASKD_TEST_CACHE): the first to
  // finish filling renames its copy into place; one that finds it there uses it.
  const shared = process.env.TASKD_TEST_CACHE ? path.join(process.env.TASKD_TEST_CACHE, `sqlite-${key}`) : undefined
  const made = (dir: string): Template => ({ source: path.join(dir, 'taskd.db'), note: fs.readFileSync(path.join(dir, 'note'), 'utf8') })
  if (shared && fs.existsSync(path.join(shared, 'note'))) return made(shared)
  const dir = fs.mkdtempSync(path.join(shared ? process.env.TASKD_TEST_CACHE! : sqliteTemplateDir(), `${key}-`))
  const database = await freshDatabase(dir)
  fs.writeFileSync(path.join(dir, 'note'), await fill(database))
  if (!shared) return made(dir)
  try {
    fs.renameSync(dir, shared)
  } catch {
    // Another process's came first (the target is a folder that is not empty).
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return made(shared)
}

async function filledPostgres(name: string, fill: (database: TestDatabase) => Promise<string>): Promise<Template> {
  await ensureTemplate()
  const note = () =>
    admin(
      async (c) =>
        (await c.query('SELECT shobj_description(oid, $2) AS note FROM pg_database WHERE datname = $1', [name, 'pg_database'])).rows[0]?.note as
          string | undefined,
    )
  const ready = await note()
  if (ready !== undefined) return { source: name, note: ready }
  return admin(async (c) => {
    await c.query('SELECT pg_advisory_lock(7462)')
    try {
      const made = await note()
      if (made !== undefined) return { source: name, note: made }
      // A run cut short may have left a half-made one behind; older fillings (of other code) are of no more use.
      const old = await c.query('SELECT datname FROM pg_database WHERE datname LIKE $1 AND datname <> $2', [`${template}\\_%`, name])
      for (const { datname } of old.rows) await c.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined)
      await c.query(`CREATE DATABASE ${name}_new TEMPLATE ${template}`)
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-tpl-'))
      try {
        const filling = await fill(postgresDatabase(dir, `${name}_new`, async () => {}, false))
        await c.query(`COMMENT ON DATABASE ${name}_new IS ${pg.escapeLiteral(filling)}`)
        await c.query(`ALTER DATABASE ${name}_new RENAME TO ${name}`)
        return { source: name, note: filling }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock(7462)')
    }
  })
}

/**
 * The pooler keeps server connections to a database after its clients have gone, which DROP DATABASE would wait for:
 * its admin console (the `pgbouncer` database, taskd being an admin user there) drops them first.
 */
async function releasePooled(name: string): Promise<void> {
  if (!poolerUrl) return
  const c = new pg.Client({ connectionString: urlFor('pgbouncer', poolerUrl) })
  try {
    await c.connect()
    await c.query(`KILL ${name}`)
  } catch {
    // Never used through the pooler: nothing to drop.
  } finally {
    await c.end().catch(() => {})
  }
}

/** A test's database; `pooled`: through the pooler when there is one (a template being filled is renamed after, so never). */
function postgresDatabase(dir: string, name: string, drop: () => Promise<void>, pooled = true): TestDatabase {
  const direct = urlFor(name)
  const env = { TASKD_DATABASE_URL: direct, TASKD_MASTER_KEY: process.env.TASKD_MASTER_KEY! }
  if (!pooled || !poolerUrl) return { db: path.join(dir, 'taskd.db'), databaseUrl: direct, env, drop }
  const databaseUrl = urlFor(name, poolerUrl)
  return {
    db: path.join(dir, 'taskd.db'),
    databaseUrl,
    databaseDirectUrl: direct,
    env: { ...env, TASKD_DATABASE_URL: databaseUrl, TASKD_DATABASE_DIRECT_URL: direct },
    drop,
  }
}

let strategy: Promise<string> | undefined
/**
 * PostgreSQL 15 and later copy a template through the write-ahead log by default: for databases this small, copying
 * the files (after a checkpoint, cheap on the test cluster, which does not fsync) is several times faster.
 */
const fileCopy = (c: pg.Client) =>
  (strategy ??= c.query('SHOW server_version_num').then((r) => (Number(r.rows[0].server_version_num) >= 150000 ? ' STRATEGY FILE_COPY' : '')))

/** A fresh database in `dir`: empty (migrated on first open), or a copy of a filled template. */
export async function freshDatabase(dir: string, from?: Template): Promise<TestDatabase> {
  const db = path.join(dir, 'taskd.db')
  if (!adminUrl) {
    // The key file too, should the filling have sealed a secret; and a write-ahead log, should one be left.
    if (from) for (const suffix of ['', '-wal', '.key']) if (fs.existsSync(from.source + suffix)) fs.copyFileSync(from.source + suffix, db + suffix)
    return { db, env: {}, drop: async () => {} }
  }
  await ensureTemplate()
  const name = `taskd_t_${crypto.randomBytes(6).toString('hex')}`
  await admin(async (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${from?.source ?? template}${await fileCopy(c)}`))
  // Without FORCE first: the test has closed its connections by now (a killed server's may take a moment to go), and
  // FORCE is refused (42501) when it would have to end a process of another role, such as an autovacuum worker.
  return postgresDatabase(dir, name, () =>
    admin(async (c) => {
      await releasePooled(name)
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name}`)
      } catch {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      }
    }),
  )
}
