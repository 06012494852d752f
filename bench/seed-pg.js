// The benchmark seed on PostgreSQL: the local throwaway cluster of scripts/test-postgres.sh, a template database per
// seed, and a fresh copy of it per measurement.
//
// The template `taskd_bench_<hash>` is created with the C collation (as taskd requires), gets its schema from taskd's
// own openDatabase (which runs the migrations), and then every row of every table of the cached SQLite seed
// (bench/seed.js), copied table by table in batched multi-row INSERTs, one transaction per table, parents before
// children. The identity columns (events.seq, webhook_logs.seq) are inserted with OVERRIDING SYSTEM VALUE and their
// sequences moved past the largest value. Then VACUUM (ANALYZE): planner statistics, and the visibility map and hint
// bits a database that autovacuum has visited would have. <hash> covers the SQLite seed's key, schema.pg.sql, the
// PostgreSQL dialect and migrations, and this file. The template lives as long as the cluster does; a build for another
// hash drops the older templates. Each measurement then runs on `CREATE DATABASE ... TEMPLATE taskd_bench_<hash>`,
// dropped afterwards. The helpers at the end are what run.js asks of such a copy (rows, size, transactions, waits).
//
//   node bench/seed-pg.js [--force]   (needs `npm run build` first) builds or checks the template
import { execFile } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import pg from 'pg'

const self = fileURLToPath(import.meta.url)
const root = path.resolve(path.dirname(self), '..')

/** Names this file creates: the templates, and the per-measurement copies (with the orchestrator's pid). */
const TEMPLATE = /^taskd_bench_[0-9a-f]{12}(_new)?$/
const RUN = /^taskd_benchrun_(\d+)_[a-z0-9_]+$/
const IDENT = /^[a-z_][a-z0-9_]*$/
const quote = (name) => {
  if (!IDENT.test(name)) throw new Error(`unexpected identifier ${JSON.stringify(name)}`)
  return `"${name}"`
}

/**
 * Starts (or reuses) the cluster of scripts/test-postgres.sh. Returns { adminUrl, startedNow }, or { missing: why }
 * when no PostgreSQL server is installed here (the script's exit code 3). Any other failure throws.
 */
export async function startPostgres() {
  const script = path.join(root, 'scripts', 'test-postgres.sh')
  const run = (cmd) =>
    new Promise((resolve) => {
      execFile('bash', [script, cmd], { cwd: root, timeout: 180_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      )
    })
  const wasRunning = (await run('status')).code === 0
  const r = await run('start')
  if (r.code === 3) return { missing: 'no PostgreSQL server installed here (scripts/test-postgres.sh exited 3)' }
  const line = /^TASKD_TEST_DATABASE_URL=(\S+)$/m.exec(r.stdout)?.[1]
  if (r.code !== 0 || !line) throw new Error(`scripts/test-postgres.sh start failed (${r.code}): ${r.stderr.trim().slice(-500)}`)
  const url = new URL(line)
  if (url.hostname !== '127.0.0.1') throw new Error(`the PostgreSQL cluster is not on 127.0.0.1: ${url.host}`)
  return { adminUrl: line, startedNow: !wasRunning, stop: () => run('stop') }
}

/** The URL of another database on the same cluster. */
export function pgUrl(adminUrl, name) {
  const u = new URL(adminUrl)
  u.pathname = `/${name}`
  return u.toString()
}

async function connect(url, fn) {
  const c = new pg.Client({ connectionString: url, application_name: 'taskd-bench' })
  await c.connect()
  try {
    return await fn(c)
  } finally {
    await c.end()
  }
}

const pidAlive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

/** The template's name for this SQLite seed (and the current schema, dialect and copier). */
export function templateName(seedKey) {
  const h = crypto.createHash('sha256').update(seedKey)
  for (const f of ['schema.pg.sql', 'src/db/postgres.ts', 'src/db/migrate.ts', 'bench/seed-pg.js']) h.update(fs.readFileSync(path.join(root, f)))
  return `taskd_bench_${h.digest('hex').slice(0, 12)}`
}

/** Tables in an order where every table comes after those its foreign keys point to. */
function parentsFirst(src, tables) {
  const order = [],
    state = new Map()
  const visit = (t) => {
    if (state.get(t) === 'done') return
    if (state.get(t) === 'visiting') throw new Error(`foreign keys form a cycle through ${t}`)
    state.set(t, 'visiting')
    for (const fk of src.pragma(`foreign_key_list(${quote(t)})`)) if (fk.table !== t && tables.includes(fk.table)) visit(fk.table)
    state.set(t, 'done')
    order.push(t)
  }
  for (const t of tables) visit(t)
  return order
}

/** Copies every row of every table of the SQLite file into the (migrated, empty) PostgreSQL database. */
async function copyRows(seedFile, c, log) {
  const src = new Database(seedFile, { readonly: true })
  try {
    // Ordinary tables, less the search index (search_docs; the FTS5 table and its shadow tables are virtual or
    // SQLite's): PostgreSQL's triggers build theirs as the cards go in.
    const tables = src
      .prepare(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'search_docs' ORDER BY name",
      )
      .pluck()
      .all()
    const counts = {}
    for (const t of parentsFirst(src, tables)) {
      const cols = src.pragma(`table_info(${quote(t)})`).map((col) => col.name)
      const pgCols = (await c.query("SELECT column_name, is_identity FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1", [t]))
        .rows
      const pgNames = new Set(pgCols.map((r) => r.column_name))
      const missing = cols.filter((col) => !pgNames.has(col))
      const extra = [...pgNames].filter((col) => !cols.includes(col))
      if (!pgCols.length || missing.length || extra.length)
        throw new Error(`table ${t} differs between the schemas: only in SQLite [${missing}], only in PostgreSQL [${extra}]`)
      const identity = pgCols.filter((r) => r.is_identity === 'YES').map((r) => r.column_name)
      const head = `INSERT INTO ${quote(t)} (${cols.map(quote).join(', ')})${identity.length ? ' OVERRIDING SYSTEM VALUE' : ''} VALUES `
      const perBatch = Math.max(1, Math.min(2000, Math.floor(60_000 / cols.length))) // 65,535 parameters at most
      const insert = async (rows) => {
        const values = rows.map((_, i) => `(${cols.map((_, j) => `$${i * cols.length + j + 1}`).join(', ')})`)
        await c.query(head + values.join(', '), rows.flat())
      }
      await c.query('BEGIN')
      let batch = [],
        n = 0
      for (const row of src
        .prepare(`SELECT ${cols.map(quote).join(', ')} FROM ${quote(t)}`)
        .raw(true)
        .iterate()) {
        batch.push(row)
        if (batch.length === perBatch) {
          await insert(batch)
          n += batch.length
          batch = []
        }
      }
      if (batch.length) await insert(batch)
      n += batch.length
      for (const col of identity)
        await c.query(`SELECT setval(pg_get_serial_sequence($1, $2), (SELECT COALESCE(MAX(${quote(col)}), 0) + 1 FROM ${quote(t)}), false)`, [t, col])
      await c.query('COMMIT')
      const copied = (await c.query(`SELECT count(*)::int AS n FROM ${quote(t)}`)).rows[0].n
      if (copied !== n) throw new Error(`table ${t}: ${n} rows read from SQLite, ${copied} in PostgreSQL`)
      counts[t] = n
    }
    log(
      `  copied ${Object.entries(counts)
        .filter(([, n]) => n)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ')}`,
    )
    return counts
  } finally {
    src.close()
  }
}

/**
 * The template database for the SQLite seed, built when missing (or when force is set).
 * Returns { template, cached, seconds }.
 */
export async function ensurePgSeed({ adminUrl, seedFile, seedKey, force = false, log = (s) => process.stdout.write(`${s}\n`) }) {
  const template = templateName(seedKey)
  const building = `${template}_new`
  return connect(adminUrl, async (admin) => {
    // One builder at a time on this cluster (another bench run may be seeding too).
    await admin.query('SELECT pg_advisory_lock(74611)')
    try {
      const names = (await admin.query('SELECT datname FROM pg_database')).rows.map((r) => r.datname)
      // Copies left by runs that were killed (their orchestrator is gone).
      for (const name of names) {
        const m = RUN.exec(name)
        if (m && !pidAlive(Number(m[1]))) await admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`)
      }
      if (names.includes(template) && !force) return { template, cached: true, seconds: 0 }
      // Older templates (another seed, schema or copier) are of no further use; so is a half-built one.
      for (const name of names) if (TEMPLATE.test(name)) await admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`)
      const t0 = performance.now()
      log(`seeding PostgreSQL template ${template} from ${path.relative(root, seedFile)} ...`)
      await admin.query(`CREATE DATABASE ${quote(building)} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`)
      const url = pgUrl(adminUrl, building)
      // The schema: taskd's own open, which runs the migrations.
      const { openDatabase } = await import(pathToFileURL(path.join(root, 'dist', 'src', 'db', 'open.js')).href)
      const db = await openDatabase({ db: '', databaseUrl: url })
      await db.close()
      await connect(url, async (c) => {
        await copyRows(seedFile, c, log)
        await c.query('VACUUM (ANALYZE)')
      })
      await admin.query(`ALTER DATABASE ${quote(building)} RENAME TO ${quote(template)}`)
      const seconds = Math.round((performance.now() - t0) / 100) / 10
      const size = (await admin.query('SELECT pg_database_size($1)::float8 AS n', [template])).rows[0].n
      log(`seeded ${template} in ${seconds} s (${(size / 1048576).toFixed(1)} MB)`)
      return { template, cached: false, seconds }
    } finally {
      await admin.query('SELECT pg_advisory_unlock(74611)')
    }
  })
}

/** A fresh copy of the template for one measurement; returns its URL. */
export async function freshPgCopy(adminUrl, template, name) {
  if (!RUN.test(name)) throw new Error(`copies are named taskd_benchrun_<pid>_<what>, not ${name}`)
  await connect(adminUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${quote(name)} TEMPLATE ${quote(template)}`)
  })
  return pgUrl(adminUrl, name)
}

export async function dropPgDatabase(adminUrl, name) {
  if (!RUN.test(name)) throw new Error(`refusing to drop ${name}: not a bench copy`)
  await connect(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`))
}

/** Rows of cards and events in a copy (before and after the create scenario). */
export async function countPgRows(url) {
  return connect(url, async (c) => {
    const r = (await c.query('SELECT (SELECT count(*) FROM cards)::int AS cards, (SELECT count(*) FROM events)::int AS events')).rows[0]
    return { cards: r.cards, events: r.events }
  })
}

/**
 * Samples pg_stat_activity for one database every intervalMs while started: on average, how many of its backends run
 * a statement, wait for a lock held by another transaction, or sit idle inside a transaction (waiting for the next
 * statement from taskd). Its own connection is to the admin database, so it does not count itself.
 */
export function activitySampler(adminUrl, dbName, intervalMs = 200) {
  const sum = { running: 0, lock: 0, idle_in_tx: 0, connections: 0 }
  let n = 0,
    stopping = false,
    loop
  const query = `SELECT count(*) FILTER (WHERE state = 'active' AND wait_event_type IS DISTINCT FROM 'Lock')::int AS running,
      count(*) FILTER (WHERE state = 'active' AND wait_event_type = 'Lock')::int AS lock,
      count(*) FILTER (WHERE state LIKE 'idle in transaction%')::int AS idle_in_tx,
      count(*)::int AS connections
    FROM pg_stat_activity WHERE datname = $1`
  return {
    start() {
      loop = connect(adminUrl, async (c) => {
        while (!stopping) {
          const r = (await c.query(query, [dbName])).rows[0]
          for (const k of Object.keys(sum)) sum[k] += r[k]
          n++
          await new Promise((resolve) => setTimeout(resolve, intervalMs))
        }
      })
    },
    async stop() {
      stopping = true
      await loop
      return Object.fromEntries([['samples', n], ...Object.entries(sum).map(([k, v]) => [k, n ? v / n : NaN])])
    },
  }
}

/**
 * Transactions of one database since it was created (pg_stat_database), once its backends are gone (they report at
 * exit): commits, rollbacks (taskd's retries after a unique violation, serialization failure or deadlock, and failed
 * requests) and deadlocks.
 */
export async function transactionStats(adminUrl, dbName) {
  return connect(adminUrl, async (c) => {
    for (let i = 0; i < 50; i++) {
      const left = (await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [dbName])).rows[0].n
      if (!left) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const r = (
      await c.query(
        'SELECT xact_commit::int AS commits, xact_rollback::int AS rollbacks, deadlocks::int AS deadlocks FROM pg_stat_database WHERE datname = $1',
        [dbName],
      )
    ).rows[0]
    return r ?? { commits: NaN, rollbacks: NaN, deadlocks: NaN }
  })
}

/** The server's version, e.g. "15.18". */
export async function pgServerVersion(adminUrl) {
  return connect(adminUrl, async (c) => (await c.query('SHOW server_version')).rows[0].server_version.split(' ')[0])
}

/** Size of a database in bytes. */
export async function pgDatabaseSize(adminUrl, name) {
  return connect(adminUrl, async (c) => (await c.query('SELECT pg_database_size($1)::float8 AS n', [name])).rows[0].n)
}

if (process.argv[1] && path.resolve(process.argv[1]) === self) {
  const force = process.argv.includes('--force')
  const pgServer = await startPostgres()
  if (pgServer.missing) {
    console.log(`skipped: ${pgServer.missing}`)
    process.exit(0)
  }
  const { ensureSeed } = await import('./seed.js')
  const { file, meta } = await ensureSeed()
  const { template, cached } = await ensurePgSeed({ adminUrl: pgServer.adminUrl, seedFile: file, seedKey: meta.key, force })
  console.log(`${cached ? 'cached' : 'built'}: ${template} on ${new URL(pgServer.adminUrl).host}`)
}
