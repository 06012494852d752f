#!/usr/bin/env node
// A list of 20,000 cards deleted with move_to: how many cards a second the set-based move reaches, and the latency of
// GET /v1/users/me asked every 5 ms meanwhile (a probe, not a load). A real `taskd serve` child on a fresh SQLite
// file, or with --pg on a fresh database of the test suite's PostgreSQL cluster (scripts/test-postgres.sh).
//   node bench/cascade.js [--pg] [--cards 20000] [--runs 3]
// Needs `npm run build` (it uses dist/: taskd's database code and the test suite's serve and bulk-cards helpers).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '..')
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const CARDS = arg('cards', 20_000)
const RUNS = arg('runs', 3)
const pg = process.argv.includes('--pg')
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')

let cluster
if (pg) {
  const { startPostgres } = await import('./seed-pg.js')
  cluster = await startPostgres()
  if (cluster.missing) throw new Error(cluster.missing)
  process.env.TASKD_TEST_DATABASE_URL = cluster.adminUrl
}
const dist = (p) => import(pathToFileURL(path.join(root, 'dist', p)).href)
const [{ openDatabase }, { freshDatabase }, { serve }, { insertCards }] = await Promise.all([
  dist('src/db/open.js'),
  dist('test/helpers/database.js'),
  dist('test/helpers/serve.js'),
  dist('test/helpers/bulk-cards.js'),
])

async function once() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-cascade-'))
  const database = await freshDatabase(dir)
  let server
  try {
    server = await serve(database.db, database.env)
    const { url, token } = server
    const call = async (method, p, body) => {
      const res = await fetch(url + p, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: res.status, text: await res.text() }
    }
    const created = JSON.parse((await call('POST', '/v1/boards', { name: 'Cascade', key_prefix: 'CA' })).text)
    const [from, to] = created.lists
    const boardId = created.board.id
    // The cards go straight into the database, as in test/api/stall.test.ts.
    await insertCards(database, { boardId, listId: from.id, keyPrefix: 'CA', count: CARDS })
    if (pg) {
      const db = await openDatabase({ ...database, readWorkers: 0 })
      try {
        await db.q.executeQuery({ sql: 'VACUUM ANALYZE cards', parameters: [], query: { kind: 'RawNode' } }).catch(() => undefined)
      } finally {
        await db.close()
      }
    }
    const loadBefore = load()
    const started = performance.now()
    let done = false
    const deletion = call('DELETE', `/v1/lists/${from.id}?move_to=${to.id}`).finally(() => (done = true))
    let ms = 0
    void deletion.then(() => (ms = performance.now() - started))
    const latencies = []
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5))
    while (!done) {
      const t0 = performance.now()
      await Promise.all([call('GET', '/v1/users/me').then(() => latencies.push(performance.now() - t0)), tick()])
    }
    const deleted = await deletion
    if (deleted.status !== 204) throw new Error(`the deletion answered ${deleted.status}: ${deleted.text}`)
    latencies.sort((a, b) => a - b)
    const p99 = latencies[Math.max(0, Math.ceil(latencies.length * 0.99) - 1)] ?? NaN
    return {
      ms,
      cardsPerSecond: (CARDS / ms) * 1000,
      probes: latencies.length,
      p50: latencies[Math.floor(latencies.length / 2)],
      p99,
      loadBefore,
      loadAfter: load(),
    }
  } finally {
    await server?.stop()
    await database.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

try {
  console.log(`${pg ? 'PostgreSQL' : 'SQLite'}: a list of ${CARDS} cards deleted with move_to, ${RUNS} runs (load average ${load()})`)
  const results = []
  for (let i = 0; i < RUNS; i++) {
    const r = await once()
    results.push(r)
    console.log(
      `  run ${i + 1}: ${Math.round(r.ms)} ms, ${Math.round(r.cardsPerSecond)} cards/s; /v1/users/me ${r.probes} probes, p50 ${r.p50?.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms; load ${r.loadBefore} -> ${r.loadAfter}`,
    )
  }
  const median = [...results].sort((a, b) => a.cardsPerSecond - b.cardsPerSecond)[Math.floor(results.length / 2)]
  console.log(`  median: ${Math.round(median.cardsPerSecond)} cards/s, users/me p99 ${median.p99.toFixed(1)} ms`)
} finally {
  if (cluster?.startedNow) await cluster.stop()
}
