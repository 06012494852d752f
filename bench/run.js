// `npm run bench`: taskd against the machine's limit (bench/limit-server.js), in one run. See bench/README.md.
//
//   node bench/run.js [--duration 10] [--warmup 2] [--connections 32] [--list-connections 10]
//                     [--only create,selective,selective-c1,text,xattr,create-spread,hooks] [--servers taskd,limit,floor,floor-pg,taskd-pg,taskd-pg2]
//                     [--profile] [--reseed] [--keep-postgres] [--check] [--record] [--repeat N]
//   node bench/run.js --print-profile bench/out/prof/taskd-create.cpuprofile
//   node bench/run.js --check-results bench/out/results.json
//
// Three processes per measurement: this orchestrator (idle while measuring), the server under test (bin/taskd.js serve,
// as users run it; under --profile a fork of this file in --taskd-child mode; or limit-server.js) and the load
// generator (a fork of this file in --client mode, running autocannon). Each server starts on a fresh copy of the same seeded database for every scenario, so all
// see identical data. The servers: taskd, the limit and the floor (limit-server.js --floor) on SQLite files; taskd-pg (one taskd process), taskd-pg2
// (two taskd processes on one database, the load split between their ports) and their floor, floor-pg
// (pg-floor-server.js), on a fresh PostgreSQL copy of the same rows (bench/seed-pg.js), when PostgreSQL is installed here. --profile runs the taskd children under
// `node --cpu-prof` and prints their hottest functions. --check compares the ratios with those recorded in
// bench/README.md and fails on a drop of more than 15% (over 3 rounds by default: the medians of each round's ratios);
// --record writes this run's ratios there. --repeat N: N rounds, every server of a scenario once in each.
import { fork, spawn } from 'node:child_process'
import crypto from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { V8_FLAGS } from '../bin/v8-flags.js'
import { ALLOWED_DROP, RECORDED_HEADING, combineRounds, compareRecorded, readRecorded, withRecorded } from './ratios.js'

const self = fileURLToPath(import.meta.url)
const here = path.dirname(self)
const root = path.resolve(here, '..')
const outDir = path.join(here, 'out')

// ---------------------------------------------------------------------------------------------------------------
// The taskd server under test is the command users run, bin/taskd.js serve (startCommand below). Under --profile it is
// this child instead: taskd's own startServer from its compiled modules, so that the profile names taskd's files (the
// bundle is one file), on the given database file, or on the PostgreSQL database when a URL is given (db is then an
// unused path). The master key comes from TASKD_MASTER_KEY, which the orchestrator sets to one random key per run, so
// that two processes on one database can read each other's secrets.
async function taskdChild(db, databaseUrl) {
  const load = (p) => import(pathToFileURL(path.join(root, 'dist', 'src', p)).href)
  const [{ loadConfig }, { startServer }] = await Promise.all([load('config.js'), load('server.js')])
  // An empty environment: TASKD_* variables of the shell must not change what is measured.
  // The load generator is one machine: as a reverse proxy would, it names a different sender per request in
  // X-Forwarded-For, so the incoming-webhook scenario measures accepted requests, not the 120-a-minute limit.
  const config = loadConfig(
    { db, databaseUrl, masterKey: process.env.TASKD_MASTER_KEY, port: 0, host: '127.0.0.1', logLevel: 'error', trustProxy: 'loopback' },
    {},
  )
  const running = await startServer(config, { print: () => {} })
  const close = async () => {
    await running.close()
    process.exit(0)
  } // a clean exit also writes the --cpu-prof profile
  process.on('message', (m) => {
    if (m === 'close') void close()
  })
  process.on('SIGTERM', () => void close())
  process.on('disconnect', () => void close()) // never outlive the orchestrator
  // Under --profile: when the server became ready, on the profile's clock (µs, monotonic), so startup can be left out.
  if (process.env.BENCH_READY_FILE) fs.writeFileSync(process.env.BENCH_READY_FILE, String(process.hrtime.bigint() / 1000n))
  process.send({ port: running.port })
}

// ---------------------------------------------------------------------------------------------------------------
// The load generator: autocannon, a warm-up run that is thrown away, then the measured run. Latencies are taken from
// autocannon's per-response event (hrtime, sub-millisecond) rather than its histogram (1 ms resolution). With several
// URLs (one per taskd process), autocannon gives connection i to URL i mod n: the load is split evenly, and req/s and
// latencies are those of all processes together.
async function clientChild(opts) {
  process.on('disconnect', () => process.exit(1)) // never outlive the orchestrator
  const { default: autocannon } = await import('autocannon')
  const base = { url: opts.url, method: opts.method, headers: opts.headers, body: opts.body, connections: opts.connections, pipelining: 1, timeout: 30 }
  if (opts.bodies || opts.senders || opts.paths) {
    // Each request takes the next body (or path) in turn, and/or comes from another sender (10.0.0.0/8, as a trusted
    // proxy would name it), so that none reaches a rate limit.
    let i = 0
    base.requests = [
      {
        setupRequest: (req) => {
          const n = i++
          const body = opts.bodies ? opts.bodies[n % opts.bodies.length] : req.body
          const reqPath = opts.paths ? opts.paths[n % opts.paths.length] : req.path
          const headers = opts.senders ? { ...req.headers, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` } : req.headers
          return { ...req, body, headers, path: reqPath }
        },
      },
    ]
  }
  if (opts.warmup > 0) await autocannon({ ...base, duration: opts.warmup })
  const latencies = []
  process.send({ phase: 'start' })
  const instance = autocannon({ ...base, duration: opts.duration })
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms)
  })
  const r = await instance
  const sorted = Float64Array.from(latencies).sort()
  const pct = (p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN)
  process.send({
    ok: latencies.length,
    seconds: r.duration,
    rps: latencies.length / r.duration,
    p50: pct(50),
    p90: pct(90),
    p99: pct(99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    bytesPerSec: r.throughput.average,
  })
  process.exit(0)
}

// ---------------------------------------------------------------------------------------------------------------
const USAGE = `node bench/run.js [options]   (npm run bench -- [options] builds first; see bench/README.md)
  --duration 10          seconds measured per server and scenario, after --warmup 2 (thrown away)
  --connections 32       concurrency of the create scenarios
  --list-connections 10  concurrency of the list scenarios (except selective-c1)
  --only create,selective,selective-c1,text,xattr   the default; create-spread and hooks run only when named
  --servers taskd,limit,floor,floor-pg,taskd-pg,taskd-pg2   the default (the PostgreSQL ones where it is installed)
  --profile              run the taskd children under node --cpu-prof and print where their time goes
  --reseed               rebuild the seeds even if cached ones match
  --keep-postgres        leave running a PostgreSQL cluster this run had to start
  --repeat N             rounds (ratios: the medians of the rounds'); 3 with --check
  --check                fail when a ratio is more than 15% below the one recorded in bench/README.md
  --record               write this run's ratios of the taskd servers into bench/README.md
  --check-results <results.json>   --check on a run saved earlier, without measuring
  --print-profile <file.cpuprofile>   summarise a saved profile again`

function parseArgs(argv) {
  const opts = {
    duration: 10,
    warmup: 2,
    connections: 32,
    listConnections: 10,
    only: ['create', 'selective', 'selective-c1', 'text', 'search', 'xattr'],
    servers: undefined, // taskd, limit, floor, and taskd-pg, taskd-pg2 when PostgreSQL is installed
    profile: false,
    reseed: false,
    keepPostgres: false,
    check: false,
    record: false,
    repeat: undefined, // 1, or 3 with --check
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i],
      next = () => argv[++i]
    if (a === '--duration') opts.duration = Number(next())
    else if (a === '--warmup') opts.warmup = Number(next())
    else if (a === '--connections') opts.connections = Number(next())
    else if (a === '--list-connections') opts.listConnections = Number(next())
    else if (a === '--only') opts.only = next().split(',')
    else if (a === '--servers') opts.servers = next().split(',')
    else if (a === '--profile') opts.profile = true
    else if (a === '--reseed') opts.reseed = true
    else if (a === '--keep-postgres') opts.keepPostgres = true
    else if (a === '--check') opts.check = true
    else if (a === '--record') opts.record = true
    else if (a === '--repeat') opts.repeat = Number(next())
    else if (a === '--help' || a === '-h') {
      console.log(USAGE)
      process.exit(0)
    } else {
      console.error(`unknown option ${a}`)
      process.exit(2)
    }
  }
  // The guard compares medians of three rounds (see combineRounds): one round is as noisy as a shared host.
  opts.repeat ??= opts.check ? 3 : 1
  if (!(Number.isInteger(opts.repeat) && opts.repeat >= 1)) {
    console.error('--repeat takes a whole number of rounds, 1 or more')
    process.exit(2)
  }
  return opts
}

function machine() {
  let cpu = 'unknown'
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu
  } catch {}
  return { nproc: os.availableParallelism(), cpu, node: process.version, platform: `${os.platform()} ${os.release()}` }
}

function forkReady(script, args, execArgv = [], env = {}) {
  const child = fork(script, args, { execArgv, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  const ready = readyOf(path.basename(script), exited, (done) => child.once('message', done))
  return { child, ready, exited }
}

/** What `listen` hands on once the process is ready; an error when it exits before, or is not ready in 60 s. */
function readyOf(name, exited, listen) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 60 s`)), 60_000)
    listen((value) => {
      clearTimeout(timer)
      resolve(value)
    })
    exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready`))
    })
  })
}

/**
 * bin/taskd.js serve on the database file (or the PostgreSQL database), as users start it (the bundle and its compile
 * cache), with the settings taskdChild gives and nothing from the shell's TASKD_* variables; ready once it prints the
 * line that names its port.
 */
function startCommand(db, databaseUrl, execArgv, env) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TASKD_')))
  const settings = { TASKD_LOG_LEVEL: 'error', TASKD_TRUST_PROXY: 'loopback' }
  // --db takes a PostgreSQL URL too (and wins over TASKD_DATABASE_URL).
  const args = [...execArgv, path.join(root, 'bin', 'taskd.js'), 'serve', '--db', databaseUrl ?? db, '--port', '0', '--host', '127.0.0.1']
  const child = spawn(process.execPath, args, { env: { ...clean, ...settings, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  // Unlike a fork, it has no channel to notice the bench going away: it is stopped when the bench exits, however.
  const orphan = () => child.kill('SIGKILL')
  process.once('exit', orphan)
  const exited = new Promise((resolve) => {
    child.once('error', (err) => resolve({ code: err.message, signal: null }))
    child.once('exit', (code, signal) => resolve({ code, signal }))
  }).finally(() => process.off('exit', orphan))
  const ready = readyOf('taskd serve', exited, (done) => {
    let out = ''
    child.stdout.on('data', (chunk) => {
      if (out === undefined) return // read on (and dropped) once the port is known, so the pipe never fills
      out += chunk
      const port = /taskd listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]
      if (!port) return
      out = undefined
      done({ port: Number(port) })
    })
  })
  return { child, ready, exited }
}

async function stop({ child, exited }) {
  if (child.exitCode !== null || child.signalCode !== null) return exited
  if (child.connected) child.send('close')
  else child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  const r = await exited
  clearTimeout(timer)
  return r
}

const size = (f) => {
  try {
    return fs.statSync(f).size
  } catch {
    return 0
  }
}
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`

function freshCopy(seedFile, name) {
  const dir = path.join(outDir, 'run')
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${name}.db`)
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true })
  fs.copyFileSync(seedFile, file)
  return file
}

async function probe(url, req) {
  const res = await fetch(url, { method: req.method, headers: req.headers, body: req.body })
  const text = await res.text()
  let json
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return { status: res.status, json }
}

/**
 * The texts of the search scenario, one per request in turn: a word in 1 title of 10 (about 10,000 matches to rank),
 * two words (about 800), a phrase, a prefix (reporting too: about 17,000), and a word and a card number (a few).
 */
const SEARCH_TEXTS = ['report', 'login safari', '"billing flow"', 'repo*', 'dashboard 4711']

function scenarios(meta, opts) {
  const headers = { authorization: `Bearer ${meta.token}` }
  const searchPaths = SEARCH_TEXTS.map((text) => `/v1/search?q=${encodeURIComponent(text)}`)
  const b0 = meta.boards[0],
    b1 = meta.boards[1]
  const list = (filter) => ({ method: 'GET', path: `/v1/cards?per_page=50&filter=${encodeURIComponent(filter)}`, headers, connections: opts.listConnections })
  const createBody = {
    title: 'Benchmark card: check the weekly report',
    board: b1.id,
    priority: 3,
    tags: [b1.tags.bug],
    assignees: [meta.users[1]],
    due_date: '2026-12-01',
  }
  const create = {
    title: 'POST /v1/cards',
    method: 'POST',
    path: '/v1/cards',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(createBody),
    connections: opts.connections,
    expect: 201,
    floor: true, // the floor server serves this scenario (and only those marked so)
  }
  return {
    create,
    // Not run by default: the same creates, on the 20 boards in turn. SQLite has one writer whatever the board; on
    // PostgreSQL, creates on one board queue for that board's row (boards.next_key) until their transaction commits,
    // creates on different boards do not.
    'create-spread': {
      ...create,
      title: 'POST /v1/cards on 20 boards',
      bodies: meta.boards.map((b) => JSON.stringify({ ...createBody, board: b.id, tags: [b.tags.bug] })),
    },
    selective: {
      title: 'GET /v1/cards selective',
      ...list(`board="${b0.id}" && priority>=3 && tags~"bug"`),
      expect: 200,
      floor: true,
    },
    // The same request one at a time: latency without queueing, which is what the p99 target is checked against.
    'selective-c1': {
      title: 'GET /v1/cards selective c=1',
      ...list(`board="${b0.id}" && priority>=3 && tags~"bug"`),
      connections: 1,
      expect: 200,
      floor: true,
    },
    // A board's cards filtered and sorted by a custom field (`estimate`, a number on the first board, on 9 of its cards
    // in 10; 2,339 of them, not in the trash, >= 10), read from the value index (card_xattr(field_id, num, card_id)). The floors serve it
    // (SQLite and PostgreSQL); the limit server does not (limit: false), so its ratio is x/floor only.
    xattr: {
      title: 'GET /v1/cards by a custom field',
      method: 'GET',
      path: `/v1/cards?board=${b0.id}&per_page=50&sort=-xattr.estimate&filter=${encodeURIComponent('xattr.estimate>=10')}`,
      headers,
      connections: opts.listConnections,
      expect: 200,
      floor: true,
      limit: false,
    },
    text: {
      title: 'GET /v1/cards text',
      ...list('title~"report"'),
      expect: 200,
    },
    // Full-text search as the owner (every board), 30 results a page with the total, 8 connections: each request the
    // next of these texts in turn (SEARCH_TEXTS). Only taskd serves it (the limit and floor have no index).
    search: {
      title: 'GET /v1/search',
      method: 'GET',
      path: searchPaths[0],
      paths: searchPaths,
      headers,
      connections: 8,
      expect: 200,
      taskdOnly: true,
      ranked: true,
    },
    // An incoming webhook with a 1 KB JSON body, each request from another sender (see clientChild).
    hooks: {
      title: 'POST /v1/hooks/<path>',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'form.submitted', title: 'Call back about the quote', message: 'x'.repeat(949) }),
      senders: true,
      connections: opts.connections,
      expect: 202,
      setup: async (base, taskd) => {
        if (!taskd) return '/v1/hooks/limit'
        const res = await fetch(`${base}/v1/webhooks/incoming`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'bench' }),
        })
        if (res.status !== 201) throw new Error(`creating the incoming endpoint answered ${res.status}: ${await res.text()}`)
        return new URL((await res.json()).incoming_webhook.url).pathname
      },
    },
  }
}

const TARGETS = { create: { ratio: 0.5 }, selective: { ratio: 0.4 }, 'selective-c1': { p99: 25 }, hooks: { ratio: 0.6 }, search: { p99: 50 } }
// Issue 15's targets against the floor (x/floor, req/s): printed on their own line as MET or MISSED; they never fail the
// run (--check guards against regressions from the recorded ratios, whatever the targets).
const FLOOR_TARGETS = { create: 0.5, selective: 0.5 }

/**
 * The servers --servers may name. taskd: a taskd server (else limit-server.js); floor: limit-server.js --floor; pg: on
 * a fresh PostgreSQL copy of the seed (else a fresh SQLite copy); processes: taskd processes on that one database, the
 * load split between them.
 */
const SERVERS = {
  taskd: { taskd: true, processes: 1 },
  limit: { taskd: false, processes: 1 },
  floor: { taskd: false, floor: true, processes: 1 },
  'floor-pg': { taskd: false, floor: true, pg: true, processes: 1 },
  'taskd-pg': { taskd: true, pg: true, processes: 1 },
  'taskd-pg2': { taskd: true, pg: true, processes: 2 },
}
const DEFAULT_SERVERS = ['taskd', 'limit', 'floor', 'floor-pg', 'taskd-pg', 'taskd-pg2']
/** The floor a server's x/floor is taken against: the PostgreSQL floor for the servers on PostgreSQL. */
const floorOf = (server) => (SERVERS[server].pg ? 'floor-pg' : 'floor')

async function main(opts) {
  // Stopped by a signal, the bench still exits through 'exit', which stops the taskd servers it started.
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(1))
  if (!fs.existsSync(path.join(root, 'dist', 'src', 'server.js'))) {
    console.error('dist/ is missing: run `npm run build` (npm run bench does it)')
    process.exit(1)
  }
  for (const s of opts.servers ?? [])
    if (!SERVERS[s]) {
      console.error(`unknown server ${s} (${Object.keys(SERVERS).join(', ')})`)
      process.exit(2)
    }
  // A block of recorded ratios that cannot be read fails now, not after the run.
  if (opts.check || opts.record)
    try {
      recordedRatios()
    } catch (err) {
      console.error(err.message)
      process.exit(2)
    }
  const started = performance.now()
  const m = machine()
  const { ensureSeed } = await import('./seed.js')
  const { file: seedFile, meta, cached } = await ensureSeed({ force: opts.reseed })
  const { default: Database } = await import('better-sqlite3')
  const sqliteVersion = (() => {
    const d = new Database(':memory:')
    try {
      return d.prepare('select sqlite_version()').pluck().get()
    } finally {
      d.close()
    }
  })()
  const problems = []
  let servers = opts.servers ?? DEFAULT_SERVERS
  const pgRun = servers.some((s) => SERVERS[s].pg) ? await setupPostgres(opts, seedFile, meta, problems) : undefined
  if (!pgRun) servers = servers.filter((s) => !SERVERS[s].pg)
  if (!servers.length) {
    console.log('nothing left to measure')
    return
  }
  console.log(`machine: ${m.nproc} CPUs, ${m.cpu}, node ${m.node}, SQLite ${sqliteVersion}${pgRun ? `, PostgreSQL ${pgRun.version}` : ''}, ${m.platform}`)
  console.log(
    `seed: ${path.relative(root, seedFile)} (${cached ? 'cached' : 'built now'}): ${meta.cards} cards on ${meta.boards.length} boards, ${mb(size(seedFile))}`,
  )
  if (pgRun) console.log(`PostgreSQL seed: template ${pgRun.template} (${pgRun.cached ? 'cached' : 'built now'}) on ${new URL(pgRun.adminUrl).host}`)
  console.log(`each measurement: ${opts.warmup} s warm-up + ${opts.duration} s, fresh copy of the seed per server and scenario`)
  console.log(`servers: ${servers.join(', ')}\n`)

  const profDir = path.join(outDir, 'prof')
  if (opts.profile) fs.mkdirSync(profDir, { recursive: true })
  const all = scenarios(meta, opts)
  const results = {}
  // One master key for every taskd process of the run: the two processes of taskd-pg2 share one database's secrets.
  const masterKey = crypto.randomBytes(32).toString('hex')
  const ctx = { opts, seedFile, pgRun, masterKey, profDir, Database }
  try {
    for (const name of opts.only) {
      const sc = all[name]
      if (!sc) {
        console.error(`unknown scenario ${name}`)
        process.exit(2)
      }
      const rounds = {} // server → its result in each round
      for (let round = 0; round < opts.repeat; round++) {
        const probes = {},
          problemsBefore = problems.length
        for (const server of servers) {
          if (SERVERS[server].floor && !sc.floor) continue
          if (!SERVERS[server].taskd && sc.taskdOnly) continue
          if (server === 'limit' && sc.limit === false) continue
          const r = await measure(ctx, server, name, sc, probes, problems)
          ;(rounds[server] ??= [])[round] = r
          if (!r) continue
          const note = r.processes > 1 && sc.connections < r.processes ? `  (${sc.connections} connection: only the first process served)` : ''
          console.log(
            `${sc.title.padEnd(28)} ${server.padEnd(9)} ${fmt(r.rps, 0).padStart(7)} req/s  p50 ${fmt(r.p50, 2).padStart(6)} ms  p99 ${fmt(r.p99, 2).padStart(6)} ms  CPU server ${cpu(r, 'server')}${r.pg ? ` db ${cpu(r, 'db')}` : ''} client ${cpu(r, 'client')} others ${cpu(r, 'others')}  peak memory ${mb(r.peakMemory)} (Σ VmHWM ${mb(r.peakRss)})${note}${opts.repeat > 1 ? `  [round ${round + 1}]` : ''}`,
          )
        }
        compareProbes(name, sc, probes, problems)
        if (opts.repeat > 1) for (let i = problemsBefore; i < problems.length; i++) problems[i] += ` [round ${round + 1}]`
      }
      results[name] = combineRounds(rounds, floorOf)
    }
  } finally {
    if (pgRun?.startedNow && !opts.keepPostgres) {
      await pgRun.stop()
      console.log('\n(the PostgreSQL cluster this run started was stopped again; --keep-postgres keeps it and its template)')
    }
  }

  const invalid = problems.length // problems of the measurements themselves (the checks below add theirs)
  // Summary: every server as a ratio to the limit server and to the floor of the same scenario in this run (the
  // medians of the rounds' ratios with --repeat).
  console.log('\nscenario       server       req/s    p50 ms   p99 ms  x/limit  x/floor  target (checked for every taskd server)')
  const floorChecks = []
  const pct = (ratio) => (ratio === undefined ? '' : `${(ratio * 100).toFixed(0)}%`)
  for (const name of opts.only) {
    for (const [server, r] of Object.entries(results[name])) {
      let verdict = ''
      if (SERVERS[server].taskd) {
        const target = TARGETS[name]
        const checks = []
        if (target?.ratio !== undefined && r.ratio !== undefined) checks.push([`ratio ≥${target.ratio * 100}%`, r.ratio >= target.ratio])
        if (target?.p99 !== undefined) checks.push([`p99 <${target.p99} ms`, r.p99 < target.p99])
        verdict = checks.length ? checks.map(([what, ok]) => `${what}: ${ok ? 'MET' : 'MISSED'}`).join(', ') : '(no target)'
        if (FLOOR_TARGETS[name] !== undefined && r.ratioFloor !== undefined)
          floorChecks.push({ name, server, ratio: r.ratioFloor, target: FLOOR_TARGETS[name] })
      }
      console.log(
        `${name.padEnd(14)} ${server.padEnd(9)} ${fmt(r.rps, 0).padStart(8)} ${fmt(r.p50, 2).padStart(9)} ${fmt(r.p99, 2).padStart(8)} ${pct(r.ratio).padStart(8)} ${pct(r.ratioFloor).padStart(8)}  ${verdict}${r.rounds ? `  (req/s by round: ${r.rounds.map((x) => fmt(x, 0)).join(', ')})` : ''}`,
      )
    }
  }
  if (floorChecks.length) {
    const line = floorChecks.map((c) => `${c.name}/${c.server} ${pct(c.ratio)} ≥${c.target * 100}%: ${c.ratio >= c.target ? 'MET' : 'MISSED'}`)
    console.log(`\nissue 15, x/floor: ${line.join(', ')}`)
  }
  if (opts.check) checkRecorded(results, problems)
  console.log('\nDatabase at the end of each measurement (server still running; SQLite: the WAL file, PostgreSQL: the database):')
  for (const name of opts.only) {
    for (const [server, r] of Object.entries(results[name])) {
      const extra = r.created !== undefined ? `, ${r.created} cards and ${r.events} events written` : ''
      const what = r.pg ? `PostgreSQL db ${mb(r.dbSize)}` : `WAL ${mb(r.wal).padStart(9)}  (db ${mb(r.dbSize)})`
      console.log(`  ${name.padEnd(13)} ${server.padEnd(9)} ${what}${extra}`)
    }
  }
  if (Object.values(results).some((byServer) => Object.values(byServer).some((r) => r.pg))) {
    console.log('\nPostgreSQL backends while measuring (average of samples every 200 ms) and transactions of the whole measurement:')
    console.log('  scenario      server    connections  running  waiting for a lock  idle in a transaction   commits  rollbacks  deadlocks')
    for (const name of opts.only)
      for (const [server, r] of Object.entries(results[name])) {
        if (!r.pg) continue
        const w = r.waits ?? {},
          t = r.transactions ?? {}
        console.log(
          `  ${name.padEnd(13)} ${server.padEnd(9)} ${fmt(w.connections, 1).padStart(11)} ${fmt(w.running, 1).padStart(8)} ${fmt(w.lock, 1).padStart(19)} ${fmt(w.idle_in_tx, 1).padStart(22)} ${String(t.commits).padStart(9)} ${String(t.rollbacks).padStart(10)} ${String(t.deadlocks).padStart(10)}`,
        )
      }
  }
  const noisy = opts.only.flatMap((name) =>
    Object.entries(results[name])
      .filter(([, r]) => r.cpu && r.cpu.others > 0.25)
      .map(([server, r]) => `${name}/${server} ${r.cpu.others.toFixed(2)}`),
  )
  if (noisy.length)
    console.log(`\nNOTE: other processes used CPU (cores) during: ${noisy.join(', ')}; those figures are noisy (a server at ~1.00 CPU still had its core).`)
  const report = {
    when: new Date().toISOString(),
    machine: { ...m, sqlite: sqliteVersion, postgres: pgRun?.version },
    seed: path.basename(seedFile),
    pgTemplate: pgRun?.template,
    opts: { ...opts, servers },
    results,
    problems,
  }
  fs.writeFileSync(path.join(outDir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`)
  if (opts.profile) {
    for (const name of opts.only) {
      for (const server of servers.filter((s) => SERVERS[s].taskd)) {
        const f = path.join(profDir, `${server}-${name}.cpuprofile`)
        if (fs.existsSync(f)) printProfile(f, `${server} ${name}`)
        else console.log(`no profile for ${server} ${name} (${path.relative(root, f)})`)
      }
    }
  }
  console.log(`\nresults: ${path.relative(root, path.join(outDir, 'results.json'))}; total ${((performance.now() - started) / 1000).toFixed(0)} s`)
  if (opts.record) {
    if (invalid) console.log('\n--record: nothing recorded, as the measurements had problems')
    else recordRatios(results)
  }
  printProblems(problems, `PROBLEMS (figures above are not valid where listed${opts.check ? '; --check lists its failures here too' : ''}):`)
}

// The regression guard (bench/ratios.js): --check compares a run's ratios with those recorded in bench/README.md,
// --record writes the run's ratios of the taskd servers there, --check-results compares a saved results.json.
const README = path.join(here, 'README.md')
const recordedRatios = () => readRecorded(fs.readFileSync(README, 'utf8'))

/** Prints each recorded ratio against the run's, adds the drops to problems, and returns the comparisons. */
function checkRecorded(results, problems) {
  console.log(`\n--check: the ratios recorded in bench/README.md (a drop of more than ${ALLOWED_DROP * 100}% fails):`)
  const compared = compareRecorded(recordedRatios().entries, results)
  for (const { key, recorded, measured, least, dropped } of compared) {
    const verdict = measured === undefined ? 'not measured in this run' : `measured ${measured.toFixed(2)}: ${dropped ? 'DROPPED' : 'ok'}`
    console.log(`  ${key.padEnd(32)} recorded ${recorded.toFixed(2)}, ${verdict}`)
    if (dropped)
      problems.push(`--check: ${key} is ${measured.toFixed(2)}, below ${least.toFixed(2)} (the recorded ${recorded.toFixed(2)} less ${ALLOWED_DROP * 100}%)`)
  }
  return compared
}

function recordRatios(results) {
  const { text, count } = withRecorded(fs.readFileSync(README, 'utf8'), results, (server) => SERVERS[server]?.taskd)
  fs.writeFileSync(README, text)
  console.log(`\n--record: ${count} ratios in bench/README.md ("${RECORDED_HEADING}")`)
}

/**
 * --check-results <results.json>: the check of a run saved earlier, without measuring. A file without results, or
 * whose results hold none of the recorded ratios, is an error; the saved run's own problems fail it as they failed the
 * run.
 */
function checkSaved(file) {
  if (!file) {
    console.error('usage: node bench/run.js --check-results <results.json>')
    process.exit(2)
  }
  const problems = []
  try {
    const saved = JSON.parse(fs.readFileSync(path.resolve(file), 'utf8'))
    const results = saved?.results
    if (typeof results !== 'object' || results === null) throw new Error(`${file} has no "results" of a bench run`)
    problems.push(...(saved.problems ?? []).filter((p) => !p.startsWith('--check:')).map((p) => `(in the saved run) ${p}`))
    if (checkRecorded(results, problems).every((c) => c.measured === undefined))
      throw new Error(`${file}: none of the ratios recorded in bench/README.md was measured in that run`)
  } catch (err) {
    console.error(err.message)
    process.exit(2)
  }
  printProblems(problems, 'PROBLEMS:')
}

/** The problems of a run under a heading, and exit code 1, if there are any. */
function printProblems(problems, heading) {
  if (!problems.length) return
  console.log(`\n${heading}`)
  for (const p of problems) console.log(`  ${p}`)
  process.exitCode = 1
}

/**
 * The PostgreSQL cluster of scripts/test-postgres.sh and the template of the seed; undefined (with a notice) when
 * PostgreSQL is not installed here. A cluster that fails to start is a problem of the run, or an error when the
 * PostgreSQL servers were asked for by name.
 */
async function setupPostgres(opts, seedFile, meta, problems) {
  const { startPostgres, ensurePgSeed, pgServerVersion } = await import('./seed-pg.js')
  let cluster
  try {
    cluster = await startPostgres()
  } catch (err) {
    if (opts.servers) throw err
    problems.push(`PostgreSQL: ${err.message}`)
    console.log(`NOTICE: PostgreSQL did not start, so taskd-pg and taskd-pg2 are skipped: ${err.message}\n`)
    return undefined
  }
  if (cluster.missing) {
    console.log(`NOTICE: ${cluster.missing}: taskd-pg and taskd-pg2 are skipped.\n`)
    return undefined
  }
  const { template, cached } = await ensurePgSeed({ adminUrl: cluster.adminUrl, seedFile, seedKey: meta.key, force: opts.reseed })
  return { ...cluster, template, cached, version: await pgServerVersion(cluster.adminUrl) }
}

/**
 * One server and scenario: a fresh copy of the seed, the server's processes, one probe per process (kept in probes
 * for compareProbes), the load, and the rows written. Returns the client's figures, or undefined when the server
 * could not start (listed under problems).
 */
async function measure(ctx, server, name, sc, probes, problems) {
  const { opts, seedFile, pgRun, masterKey, profDir, Database } = ctx
  const spec = SERVERS[server]
  const pgSeed = spec.pg ? await import('./seed-pg.js') : undefined
  // SQLite: a copy of the seed file. PostgreSQL: a copy of the template; the SQLite path is then unused (never created).
  const db = spec.pg ? path.join(outDir, 'run', `${server}.unused.db`) : freshCopy(seedFile, server)
  const pgName = spec.pg ? `taskd_benchrun_${process.pid}_${server.replace(/-/g, '_')}` : undefined
  const databaseUrl = spec.pg ? await pgSeed.freshPgCopy(pgRun.adminUrl, pgRun.template, pgName) : undefined
  const count = () => (spec.pg ? pgSeed.countPgRows(databaseUrl) : countRows(Database, db))
  const procs = []
  let memory
  try {
    const cardsBefore = sc.method === 'POST' ? await count() : undefined
    for (let i = 0; i < spec.processes; i++) {
      if (!spec.taskd) {
        if (spec.pg) procs.push(forkReady(path.join(here, 'pg-floor-server.js'), [databaseUrl]))
        else procs.push(forkReady(path.join(here, 'limit-server.js'), spec.floor ? ['--floor', db] : [db]))
        continue
      }
      const profile = opts.profile && i === 0
      const profName = `${server}-${name}.cpuprofile`
      const readyFile = path.join(profDir, `${profName}.ready`)
      if (profile) for (const f of [readyFile, path.join(profDir, profName)]) fs.rmSync(f, { force: true })
      // taskd's own V8 settings, as bin/taskd.js and the binary start it with.
      const execArgv = [...V8_FLAGS, ...(profile ? ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-name', profName] : [])]
      // BENCH_DB_PREPARE=on|off|auto: taskd's TASKD_DB_PREPARE (PostgreSQL's prepared statements), to compare both in one run.
      const prepare = process.env.BENCH_DB_PREPARE ? { TASKD_DB_PREPARE: process.env.BENCH_DB_PREPARE } : {}
      const env = { TASKD_MASTER_KEY: masterKey, ...prepare, ...(profile ? { BENCH_READY_FILE: readyFile } : {}) }
      if (opts.profile) procs.push(forkReady(self, ['--taskd-child', db, ...(databaseUrl ? [databaseUrl] : [])], execArgv, env))
      else procs.push(startCommand(db, databaseUrl, execArgv, env))
    }
    let ports
    try {
      ports = (await Promise.all(procs.map((p) => p.ready))).map((m) => m.port)
      memory = memorySampler(procs.map((p) => p.child.pid))
    } catch (err) {
      problems.push(`${name}/${server}: did not start: ${err.message}`)
      return undefined
    }
    // A scenario may make what it needs first (an incoming endpoint), on the first process, and learn its path.
    const scPath = sc.setup ? await sc.setup(`http://127.0.0.1:${ports[0]}`, spec.taskd) : sc.path
    const urls = ports.map((port) => `http://127.0.0.1:${port}${scPath}`)
    // One request per process before the load: the status must be right, and the answers are compared afterwards.
    probes[server] = []
    for (const [i, url] of urls.entries()) {
      const p = await probe(url, sc)
      probes[server].push(p)
      if (p.status !== sc.expect)
        problems.push(`${name}/${server}${urls.length > 1 ? ` process ${i + 1}` : ''}: probe answered ${p.status}: ${JSON.stringify(p.json).slice(0, 300)}`)
    }
    const r = await runClient(
      {
        url: urls.length === 1 ? urls[0] : urls,
        method: sc.method,
        headers: sc.headers,
        body: sc.body,
        bodies: sc.bodies,
        paths: sc.paths,
        senders: sc.senders,
        connections: sc.connections,
        warmup: opts.warmup,
        duration: opts.duration,
      },
      procs.map((p) => p.child.pid),
      pgName,
      spec.pg ? pgSeed.activitySampler(pgRun.adminUrl, pgName) : undefined,
    )
    Object.assign(r, { processes: spec.processes, pg: Boolean(spec.pg), items: probes[server][0].json?.totalItems })
    r.peakMemory = memory.stop()
    r.peakRss = peakRss(processTree(procs.map((p) => p.child.pid)))
    if (spec.pg) r.dbSize = await pgSeed.pgDatabaseSize(pgRun.adminUrl, pgName)
    else {
      r.wal = size(`${db}-wal`) // while the server still runs: a clean close checkpoints and removes the WAL
      r.dbSize = size(db)
    }
    const exits = await Promise.all(procs.map(stop))
    procs.length = 0
    for (const [i, e] of exits.entries())
      if (e.code !== 0) problems.push(`${name}/${server}${exits.length > 1 ? ` process ${i + 1}` : ''}: exited with ${e.code ?? e.signal} after the load`)
    if (spec.pg) r.transactions = await pgSeed.transactionStats(pgRun.adminUrl, pgName)
    if (cardsBefore !== undefined) {
      const cardsAfter = await count()
      r.created = cardsAfter.cards - cardsBefore.cards
      r.events = cardsAfter.events - cardsBefore.events // probes + warm-up + measured run
    }
    if (r.errors || r.timeouts || r.non2xx) problems.push(`${name}/${server}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`)
    return r
  } finally {
    memory?.stop()
    await Promise.all(procs.map(stop))
    if (pgName) await pgSeed.dropPgDatabase(pgRun.adminUrl, pgName)
  }
}

/** Fields of a created card that differ between two creates of the same body: ids, times, the key and the position. */
const VOLATILE = new Set(['id', 'key', 'position', 'created', 'updated', 'completed_at'])
const stableCard = (card) => Object.fromEntries(Object.entries(card ?? {}).filter(([k]) => !VOLATILE.has(k) && k !== 'existing'))

/**
 * Every taskd process's probe against the limit server's (else the first server's): lists deep-equal (same
 * totalItems, same page in the same order, same fields), a create the same card fields and values apart from ids,
 * times, key and position. The floor answers less (rows without their relations, a create with a few fields): its
 * list must hold the same total and the same cards in the same order; its create is checked by its status only.
 */
function compareProbes(name, sc, probes, problems) {
  const refServer = probes.limit ? 'limit' : Object.keys(probes).find((s) => !SERVERS[s].floor)
  const ref = probes[refServer]?.[0]
  if (!ref || ref.status !== sc.expect) return
  const ids = (j) => (Array.isArray(j?.items) ? j.items.map((c) => c.id) : [])
  for (const [server, list] of Object.entries(probes)) {
    for (const [i, p] of list.entries()) {
      if ((server === refServer && i === 0) || p.status !== sc.expect) continue
      const who = `${server}${list.length > 1 ? ` process ${i + 1}` : ''}`
      if (SERVERS[server].floor) {
        if (sc.method === 'GET' && (ref.json?.totalItems !== p.json?.totalItems || ids(ref.json).join() !== ids(p.json).join()))
          problems.push(`${name}: ${who} and ${refServer} answered different pages: totals ${p.json?.totalItems} vs ${ref.json?.totalItems}, or other cards`)
      } else if (sc.ranked) {
        // Each dialect ranks by its own function (bm25, ts_rank_cd) and marks its own snippets: the totals must agree,
        // or past the bound of what a search counts (totalCapped) both be estimates.
        const total = (j) => (j?.totalCapped ? 'an estimate' : j?.totalItems)
        if (total(ref.json) !== total(p.json)) problems.push(`${name}: ${who} and ${refServer} found different totals: ${total(p.json)} vs ${total(ref.json)}`)
      } else if (sc.method === 'GET') {
        if (isDeepStrictEqual(ref.json, p.json)) continue
        const [a, b] = [ids(ref.json), ids(p.json)]
        const sameCards = a.length === b.length && [...a].sort().join() === [...b].sort().join()
        const what = a.join() === b.join() ? 'the same cards in the same order, but' : sameCards ? 'the same cards in another order;' : 'other cards;'
        problems.push(`${name}: ${who} and ${refServer} answered different pages: ${what} first difference ${firstDifference(ref.json, p.json)}`)
      } else {
        const keys = (j) =>
          Object.keys(j?.card ?? {})
            .filter((k) => k !== 'existing')
            .sort()
            .join(',')
        if (keys(ref.json) !== keys(p.json))
          problems.push(`${name}: ${who} and ${refServer} return different card fields: ${keys(p.json)} vs ${keys(ref.json)}`)
        else if (!isDeepStrictEqual(stableCard(ref.json.card), stableCard(p.json.card)))
          problems.push(`${name}: ${who} and ${refServer} created different cards: ${firstDifference(stableCard(ref.json.card), stableCard(p.json.card))}`)
      }
    }
  }
}

/** Where two JSON values first differ, as "path: a vs b" (a from the reference). */
function firstDifference(a, b, at = '') {
  const short = (v) => (JSON.stringify(v) ?? 'undefined').slice(0, 120)
  if (isDeepStrictEqual(a, b)) return undefined
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && a.length !== b.length) return `${at || '(top)'}: ${a.length} vs ${b.length} entries`
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const sub = Array.isArray(a) ? `${at}[${k}]` : `${at}.${k}`
      if (!(k in a) || !(k in b)) return `${sub}: ${k in a ? 'missing' : 'extra'}`
      const d = firstDifference(a[k], b[k], sub)
      if (d) return d
    }
  }
  return `${at || '(top)'}: ${short(a)} vs ${short(b)}`
}

const cpu = (r, k) => (r.cpu ? r.cpu[k].toFixed(2) : '-')
const fmt = (n, digits) => (Number.isFinite(n) ? n.toFixed(digits) : '-')

function countRows(Database, file) {
  const d = new Database(file, { readonly: true })
  try {
    return { cards: d.prepare('select count(*) from cards').pluck().get(), events: d.prepare('select count(*) from events').pluck().get() }
  } finally {
    d.close()
  }
}

/**
 * Runs the load generator; while it measures (after its warm-up), samples CPU time from /proc: the server's (its
 * processes and their children, e.g. taskd's read processes), the PostgreSQL backends serving dbName (when given),
 * the generator's, and the rest of the machine's (other processes on a shared machine make the figures noisy).
 * sampler (optional) is started and stopped with the measured window.
 */
function runClient(opts, serverPids, dbName, sampler) {
  return new Promise((resolve, reject) => {
    const child = fork(self, ['--client', JSON.stringify(opts)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let result, before
    const sample = () => {
      const table = procTable()
      const tree = descendants(table, serverPids)
      const isBackend = (p) => dbName && p.title?.startsWith('postgres: ') && p.title.includes(` ${dbName} `)
      const group = (pred) => new Map([...table].filter(([pid, p]) => pred(pid, p)).map(([pid, p]) => [pid, p.cpu]))
      return {
        t: performance.now(),
        all: machineBusy(),
        server: group((pid) => tree.has(pid)),
        db: group((_, p) => isBackend(p)),
        client: group((pid) => pid === child.pid),
        me: group((pid) => pid === process.pid),
      }
    }
    child.on('message', (m) => {
      if (m.phase === 'start') {
        before = sample()
        sampler?.start()
        return
      }
      result = m
      if (before) {
        const after = sample(),
          secs = (after.t - before.t) / 1000
        // Processes that started after the first sample count from zero; those that ended in between are not seen.
        const d = (k) => {
          let sum = 0
          for (const [pid, t] of after[k]) sum += t - (before[k].get(pid) ?? 0)
          return sum / secs
        }
        const used = { server: d('server'), db: d('db'), client: d('client') }
        result.cpu = { ...used, others: Math.max(0, (after.all - before.all) / secs - used.server - used.db - used.client - d('me')) }
      }
    })
    child.once('exit', async (code) => {
      if (sampler && result) result.waits = await sampler.stop()
      if (result) resolve(result)
      else reject(new Error(`load generator exited ${code} without a result`))
    })
  })
}

const HZ = 100 // USER_HZ of /proc; 100 on Linux
/** Busy CPU seconds of the whole machine since boot (0 where /proc is missing). */
function machineBusy() {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
    const [user, nice, system, , , irq, softirq, steal] = f
    return (user + nice + system + irq + softirq + (steal ?? 0)) / HZ
  } catch {
    return 0
  }
}

/** Every process: pid → { ppid, cpu (user + system seconds so far), title (PostgreSQL processes only) }. */
function procTable() {
  const table = new Map()
  let pids
  try {
    pids = fs.readdirSync('/proc').filter((f) => /^\d+$/.test(f))
  } catch {
    return table
  }
  for (const name of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8')
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const p = { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / HZ }
      // A backend's title: "postgres: <user> <database> <client> <state>".
      if (comm === 'postgres') p.title = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ')
      table.set(Number(name), p)
    } catch {}
  }
  return table
}

/**
 * The peak memory of the given processes and their descendants (bytes), sampled every 100 ms until stop(): their
 * anonymous and shared memory added up, plus the file-backed pages of the process that maps the most. Those are the
 * executable's and its libraries' (the node binary's text, which taskd's read processes map too): in memory once,
 * however many processes map them, so a sum of RSS would count them once per process.
 */
function memorySampler(pids) {
  let peak = 0
  const tick = () => {
    let own = 0,
      file = 0
    for (const pid of processTree(pids))
      try {
        const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
        own += statusBytes(status, 'RssAnon') + statusBytes(status, 'RssShmem')
        file = Math.max(file, statusBytes(status, 'RssFile'))
      } catch {}
    peak = Math.max(peak, own + file)
  }
  tick()
  let timer = setInterval(tick, 100)
  return {
    stop() {
      if (timer) tick()
      clearInterval(timer)
      timer = undefined
      return peak
    },
  }
}

/** A `<field>: <n> kB` line of /proc/<pid>/status, in bytes (0 when absent). */
const statusBytes = (status, field) => Number(new RegExp(`^${field}:\\s*(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024

/**
 * The given processes and their descendants, from each thread's `children` in /proc: a few reads per process, where
 * procTable() reads every process of the machine (too much for the sampler's 10 a second while the server is measured).
 */
function processTree(pids) {
  const out = new Set()
  const walk = (pid) => {
    if (out.has(pid)) return
    out.add(pid)
    let tasks = []
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`)
    } catch {}
    for (const t of tasks)
      try {
        for (const child of fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean)) walk(Number(child))
      } catch {}
  }
  for (const pid of pids) walk(pid)
  return out
}

/** The sum of the peak resident set sizes (VmHWM, bytes) of the given processes (0 where /proc is missing). */
function peakRss(pids) {
  let sum = 0
  for (const pid of pids)
    try {
      sum += statusBytes(fs.readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmHWM')
    } catch {}
  return sum
}

/** The given processes and all their descendants. */
function descendants(table, pids) {
  const out = new Set(pids)
  for (let grew = true; grew;) {
    grew = false
    for (const [pid, p] of table)
      if (!out.has(pid) && out.has(p.ppid)) {
        out.add(pid)
        grew = true
      }
  }
  return out
}

/**
 * Summarises a V8 .cpuprofile of the taskd child: self time by function, time inside SQLite (better-sqlite3's native
 * calls count as self time of src/db/sql.ts) by the taskd function that issued the query, and inclusive time of
 * taskd's own functions. dist/ positions are mapped back to src/*.ts lines through the source maps.
 */
function printProfile(file, name) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8'))
  // Samples from before the server was ready (module loading, migrations) are left out when the .ready file exists.
  let from = -Infinity
  try {
    from = Number(fs.readFileSync(`${file}.ready`, 'utf8'))
  } catch {}
  const selfTime = new Map()
  let at = prof.startTime
  for (let i = 0; i < prof.samples.length; i++) {
    at += prof.timeDeltas[i] ?? 0
    if (at < from) continue
    selfTime.set(prof.samples[i], (selfTime.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0))
  }
  const total = [...selfTime.values()].reduce((a, b) => a + b, 0)
  const parent = new Map()
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n)
  const byId = new Map(prof.nodes.map((n) => [n.id, n]))
  const where = (cf) => {
    if (!cf.url) return '(native)'
    const p = cf.url.replace(/^file:\/\//, '')
    const mapped = p.startsWith(path.join(root, 'dist')) ? mapToSource(p, cf.lineNumber, cf.columnNumber) : undefined
    if (mapped) return mapped
    return `${p.replace(`${root}/`, '').replace(/^node_modules\/((?:@[^/]+\/)?[^/]+)\/.*$/, '$1')}${p.includes('node_modules') ? '' : `:${cf.lineNumber + 1}`}`
  }
  const label = (cf) => `${cf.functionName || '(anonymous)'} ${where(cf)}`
  const isOwn = (cf) => cf.url.includes('/dist/src/')
  const isSqlLayer = (cf) => cf.url.endsWith('/dist/src/db/sql.js')
  const category = (cf) => {
    const u = cf.url
    if (!u) return ['(garbage collector)', '(idle)', '(program)'].includes(cf.functionName) ? cf.functionName : `native: ${cf.functionName}`
    if (u.endsWith('/dist/src/db/sql.js') || u.includes('/better-sqlite3/')) return 'SQLite (calls through better-sqlite3)'
    if (u.includes('/dist/src/')) return 'taskd code (dist/src)'
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)
    if (pkg) return `package ${pkg[1]}`
    return u.startsWith('node:') ? 'node internals' : u
  }
  const selfBy = new Map(),
    sqlBy = new Map(),
    inclusive = new Map(),
    byCategory = new Map()
  const add = (m, k, t) => m.set(k, (m.get(k) ?? 0) + t)
  for (const [id, t] of selfTime) {
    const n = byId.get(id)
    add(selfBy, label(n.callFrame), t)
    add(byCategory, category(n.callFrame), t)
    const seen = new Set()
    let sqlCaller
    for (let a = n; a; a = parent.get(a.id)) {
      const cf = a.callFrame
      if (!cf.url || !isOwn(cf)) continue
      const k = label(cf)
      if (!seen.has(k)) {
        seen.add(k)
        add(inclusive, k, t)
      }
      if (isSqlLayer(n.callFrame) && !sqlCaller && !isSqlLayer(cf)) sqlCaller = k
    }
    if (sqlCaller) add(sqlBy, sqlCaller, t)
  }
  const pct = (t) => `${((t / total) * 100).toFixed(1).padStart(5)}%`
  const top = (m, k) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, k)
  console.log(`\nprofile of taskd during "${name}" (${path.relative(root, file)}), ${(total / 1e6).toFixed(1)} s sampled`)
  console.log('  self time by kind:')
  for (const [k, t] of top(byCategory, 12)) console.log(`  ${pct(t)}  ${k}`)
  console.log('  self time:')
  for (const [k, t] of top(selfBy, 15)) console.log(`  ${pct(t)}  ${k}`)
  console.log('  time inside SQLite calls, by the taskd function that made them:')
  for (const [k, t] of top(sqlBy, 12)) console.log(`  ${pct(t)}  ${k}`)
  console.log('  inclusive time of taskd functions:')
  for (const [k, t] of top(inclusive, 20)) console.log(`  ${pct(t)}  ${k}`)
}

const sourceMaps = new Map()
/** dist/…/x.js line/column (0-based) → "src/…/x.ts:line" through x.js.map; undefined without a map. */
function mapToSource(jsFile, line, column) {
  if (!sourceMaps.has(jsFile)) {
    let lines
    try {
      const map = JSON.parse(fs.readFileSync(`${jsFile}.map`, 'utf8'))
      const source = path.relative(root, path.resolve(path.dirname(jsFile), map.sourceRoot ?? '', map.sources[0]))
      lines = { source, segs: decodeMappings(map.mappings) }
    } catch {
      lines = undefined
    }
    sourceMaps.set(jsFile, lines)
  }
  const m = sourceMaps.get(jsFile)
  if (!m) return undefined
  const segs = m.segs[line] ?? []
  let best
  for (const s of segs)
    if (s[0] <= column) best = s
    else break
  best ??= segs[0]
  return best ? `${m.source}:${best[2] + 1}` : `${m.source}:?`
}

function decodeMappings(mappings) {
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  const out = []
  let src = 0,
    srcLine = 0,
    srcCol = 0
  for (const lineText of mappings.split(';')) {
    const segs = []
    let genCol = 0
    for (const seg of lineText.split(',')) {
      if (!seg) continue
      const vals = []
      let v = 0,
        shift = 0
      for (const ch of seg) {
        const d = B64.indexOf(ch)
        v += (d & 31) << shift
        if (d & 32) shift += 5
        else {
          vals.push(v & 1 ? -(v >>> 1) : v >>> 1)
          v = 0
          shift = 0
        }
      }
      genCol += vals[0]
      if (vals.length >= 4) {
        src += vals[1]
        srcLine += vals[2]
        srcCol += vals[3]
        segs.push([genCol, src, srcLine, srcCol])
      }
    }
    out.push(segs)
  }
  return out
}

// Last, so every declaration above is initialised before the top-level await runs.
if (process.argv[2] === '--taskd-child') await taskdChild(process.argv[3], process.argv[4])
else if (process.argv[2] === '--client') await clientChild(JSON.parse(process.argv[3]))
else if (process.argv[2] === '--check-results') checkSaved(process.argv[3])
else if (process.argv[2] === '--print-profile') printProfile(path.resolve(process.argv[3]), path.basename(process.argv[3]))
else await main(parseArgs(process.argv.slice(2)))
