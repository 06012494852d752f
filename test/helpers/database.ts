// The database a test runs on: a fresh SQLite file, or, when TASKD_TEST_DATABASE_URL is set (npm test sets it for its
// PostgreSQL run), a fresh PostgreSQL database copied from a template that already has the schema.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { SCHEMA_VERSION } from '../../src/db/migrate.js'
import { openDatabase } from '../../src/db/open.js'

const adminUrl = process.env.TASKD_TEST_DATABASE_URL || undefined
export const testDialect: 'sqlite' | 'postgres' = adminUrl ? 'postgres' : 'sqlite'
// On PostgreSQL taskd needs TASKD_MASTER_KEY (there is no database file to keep a key file beside): one per test process.
const masterKey = crypto.randomBytes(32).toString('hex')
if (adminUrl) process.env.TASKD_MASTER_KEY ??= masterKey

export interface TestDatabase {
  /** The SQLite file (on PostgreSQL too: the key file lives beside it). */
  db: string
  /** The PostgreSQL database, when the tests run on PostgreSQL. */
  databaseUrl?: string
  /** For a `taskd` child process: where its database is. */
  env: Record<string, string>
  /** Drops the PostgreSQL database (a no-op on SQLite; the caller removes the folder). */
  drop(): Promise<void>
}

const urlFor = (name: string) => {
  const u = new URL(adminUrl!)
  u.pathname = `/${name}`
  return u.toString()
}

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

/** A fresh, empty (migrated) database in `dir`. */
export async function freshDatabase(dir: string): Promise<TestDatabase> {
  const db = path.join(dir, 'taskd.db')
  if (!adminUrl) return { db, env: {}, drop: async () => {} }
  await ensureTemplate()
  const name = `taskd_t_${crypto.randomBytes(6).toString('hex')}`
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`))
  const databaseUrl = urlFor(name)
  return {
    db,
    databaseUrl,
    env: { TASKD_DATABASE_URL: databaseUrl, TASKD_MASTER_KEY: process.env.TASKD_MASTER_KEY! },
    // Without FORCE first: the test has closed its connections by now (a killed server's may take a moment to go), and
    // FORCE is refused (42501) when it would have to end a process of another role, such as an autovacuum worker.
    drop: () =>
      admin(async (c) => {
        try {
          await c.query(`DROP DATABASE IF EXISTS ${name}`)
        } catch {
          await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        }
      }),
  }
}
