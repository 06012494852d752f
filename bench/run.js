// `npm run bench`: taskd against the machine's limit (bench/limit-server.js), in one run. See bench/README.md.
//
//   node bench/run.js [--duration 10] [--warmup 2] [--connections 32] [--list-connections 10]
//                     [--only create,selective,selective-c1,text] [--servers taskd,limit] [--profile] [--reseed]
//   node bench/run.js --print-profile bench/out/prof/taskd-create.cpuprofile
//
// Three processes per measurement: this orchestrator (idle while measuring), the server under test (a fork of this
// file in --taskd-child mode, or limit-server.js) and the load generator (a fork of this file in --client mode,
// running autocannon). Each server starts on a fresh copy of the same seeded database for every scenario, so both
// see identical data. --profile runs the taskd child under `node --cpu-prof` and prints its hottest functions.
import { fork } from 'node:child_process'
import { isDeepStrictEqual } from 'node:util'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const self = fileURLToPath(import.meta.url)
const here = path.dirname(self)
const root = path.resolve(here, '..')
const outDir = path.join(here, 'out')

// ---------------------------------------------------------------------------------------------------------------
// The taskd server under test: taskd's own startServer on the given database file.
async function taskdChild(db) {
  const load = (p) => import(pathToFileURL(path.join(root, 'dist', 'src', p)).href)
  const [{ loadConfig }, { startServer }] = await Promise.all([load('config.js'), load('server.js')])
  // An empty environment: TASKD_* variables of the shell must not change what is measured.
  const running = await startServer(loadConfig({ db, port: 0, host: '127.0.0.1', logLevel: 'error' }, {}), { print: () => {} })
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
// autocannon's per-response event (hrtime, sub-millisecond) rather than its histogram (1 ms resolution).
async function clientChild(opts) {
  process.on('disconnect', () => process.exit(1)) // never outlive the orchestrator
  const { default: autocannon } = await import('autocannon')
  const base = { url: opts.url, method: opts.method, headers: opts.headers, body: opts.body, connections: opts.connections, pipelining: 1, timeout: 30 }
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
function parseArgs(argv) {
  const opts = {
    duration: 10,
    warmup: 2,
    connections: 32,
    listConnections: 10,
    only: ['create', 'selective', 'selective-c1', 'text'],
    servers: ['taskd', 'limit'],
    profile: false,
    reseed: false,
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
    else {
      console.error(`unknown option ${a}`)
      process.exit(2)
    }
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
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${path.basename(script)} did not start in 60 s`)), 60_000)
    child.once('message', (m) => {
      clearTimeout(timer)
      resolve(m)
    })
    exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(new Error(`${path.basename(script)} exited (${code ?? signal}) before it was ready`))
    })
  })
  return { child, ready, exited }
}

async function stop({ child, exited }) {
  if (child.exitCode !== null || child.signalCode !== null) return exited
  child.send('close')
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

function scenarios(meta, opts) {
  const headers = { authorization: `Bearer ${meta.token}` }
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
  return {
    create: {
      title: 'POST /v1/cards',
      method: 'POST',
      path: '/v1/cards',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(createBody),
      connections: opts.connections,
      expect: 201,
    },
    selective: {
      title: 'GET /v1/cards selective',
      ...list(`board="${b0.id}" && priority>=3 && tags~"bug"`),
      expect: 200,
    },
    // The same request one at a time: latency without queueing, which is what the p99 target is checked against.
    'selective-c1': {
      title: 'GET /v1/cards selective c=1',
      ...list(`board="${b0.id}" && priority>=3 && tags~"bug"`),
      connections: 1,
      expect: 200,
    },
    text: {
      title: 'GET /v1/cards text',
      ...list('title~"report"'),
      expect: 200,
    },
  }
}

const TARGETS = { create: { ratio: 0.5 }, selective: { ratio: 0.4 }, 'selective-c1': { p99: 25 } }

async function main(opts) {
  if (!fs.existsSync(path.join(root, 'dist', 'src', 'server.js'))) {
    console.error('dist/ is missing: run `npx tsc -p tsconfig.json` (npm run bench does it)')
    process.exit(1)
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
  console.log(`machine: ${m.nproc} CPUs, ${m.cpu}, node ${m.node}, SQLite ${sqliteVersion}, ${m.platform}`)
  console.log(
    `seed: ${path.relative(root, seedFile)} (${cached ? 'cached' : 'built now'}): ${meta.cards} cards on ${meta.boards.length} boards, ${mb(size(seedFile))}`,
  )
  console.log(`each measurement: ${opts.warmup} s warm-up + ${opts.duration} s, fresh copy of the seed per server and scenario\n`)

  const profDir = path.join(outDir, 'prof')
  if (opts.profile) fs.mkdirSync(profDir, { recursive: true })
  const all = scenarios(meta, opts)
  const results = {}
  const problems = []
  for (const name of opts.only) {
    const sc = all[name]
    if (!sc) {
      console.error(`unknown scenario ${name}`)
      process.exit(2)
    }
    results[name] = {}
    const reference = {}
    for (const server of opts.servers) {
      const db = freshCopy(seedFile, server)
      const cardsBefore = name === 'create' ? countRows(Database, db) : undefined
      const execArgv = server === 'taskd' && opts.profile ? ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-name', `taskd-${name}.cpuprofile`] : []
      const readyFile = path.join(profDir, `taskd-${name}.cpuprofile.ready`)
      if (opts.profile) for (const f of [readyFile, readyFile.replace(/\.ready$/, '')]) fs.rmSync(f, { force: true })
      const proc =
        server === 'taskd'
          ? forkReady(self, ['--taskd-child', db], execArgv, opts.profile ? { BENCH_READY_FILE: readyFile } : {})
          : forkReady(path.join(here, 'limit-server.js'), [db])
      const { port } = await proc.ready
      const url = `http://127.0.0.1:${port}${sc.path}`
      // One request before the load: the status must be right, and both servers must answer a list the same way.
      const p = await probe(url, sc)
      if (p.status !== sc.expect) {
        problems.push(`${name}/${server}: probe answered ${p.status}: ${JSON.stringify(p.json).slice(0, 300)}`)
      } else if (sc.method === 'GET') {
        if (reference.json === undefined) Object.assign(reference, { json: p.json, server })
        else if (!isDeepStrictEqual(reference.json, p.json)) problems.push(`${name}: ${server} and ${reference.server} answered different pages`)
      } else {
        const keys = Object.keys(p.json.card ?? {})
          .filter((k) => k !== 'existing')
          .sort()
          .join(',')
        if (reference.keys === undefined) Object.assign(reference, { keys, server })
        else if (reference.keys !== keys) problems.push(`${name}: ${server} and ${reference.server} return different card fields`)
      }
      const r = await runClient(
        { url, method: sc.method, headers: sc.headers, body: sc.body, connections: sc.connections, warmup: opts.warmup, duration: opts.duration },
        proc.child.pid,
      )
      r.wal = size(`${db}-wal`) // while the server still runs: a clean close checkpoints and removes the WAL
      r.dbSize = size(db)
      r.items = p.json?.totalItems
      await stop(proc)
      if (cardsBefore !== undefined) {
        const cardsAfter = countRows(Database, db)
        r.created = cardsAfter.cards - cardsBefore.cards
        r.events = cardsAfter.events - cardsBefore.events // probe + warm-up + measured run
      }
      if (r.errors || r.timeouts || r.non2xx) problems.push(`${name}/${server}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`)
      results[name][server] = r
      console.log(
        `${sc.title.padEnd(28)} ${server.padEnd(6)} ${fmt(r.rps, 0).padStart(7)} req/s  p50 ${fmt(r.p50, 2).padStart(6)} ms  p99 ${fmt(r.p99, 2).padStart(6)} ms  CPU server ${cpu(r, 'server')} client ${cpu(r, 'client')} others ${cpu(r, 'others')}`,
      )
    }
  }

  // Summary.
  console.log('\nscenario       server    req/s    p50 ms   p99 ms  taskd/limit  target')
  for (const name of opts.only) {
    const t = results[name].taskd,
      l = results[name].limit
    const ratio = t && l ? t.rps / l.rps : undefined
    for (const [server, r] of Object.entries(results[name])) {
      let verdict = ''
      if (server === 'taskd' && ratio !== undefined) {
        const target = TARGETS[name]
        if (target) {
          const checks = []
          if (target.ratio !== undefined) checks.push([`ratio ≥${target.ratio * 100}%`, ratio >= target.ratio])
          if (target.p99 !== undefined) checks.push([`p99 <${target.p99} ms`, r.p99 < target.p99])
          verdict = `${(ratio * 100).toFixed(0)}%`.padStart(11) + '  ' + checks.map(([what, ok]) => `${what}: ${ok ? 'MET' : 'MISSED'}`).join(', ')
        } else verdict = `${(ratio * 100).toFixed(0)}%`.padStart(11) + '  (no target)'
      }
      console.log(`${name.padEnd(14)} ${server.padEnd(6)} ${fmt(r.rps, 0).padStart(8)} ${fmt(r.p50, 2).padStart(9)} ${fmt(r.p99, 2).padStart(8)} ${verdict}`)
    }
  }
  console.log('\nWAL file size at the end of each measurement (server still running):')
  for (const name of opts.only) {
    for (const [server, r] of Object.entries(results[name])) {
      const extra = r.created !== undefined ? `, ${r.created} cards and ${r.events} events written` : ''
      console.log(`  ${name.padEnd(13)} ${server.padEnd(6)} WAL ${mb(r.wal).padStart(9)}  (db ${mb(r.dbSize)}${extra})`)
    }
  }
  const noisy = opts.only.flatMap((name) =>
    Object.entries(results[name])
      .filter(([, r]) => r.cpu && r.cpu.others > 0.25)
      .map(([server, r]) => `${name}/${server} ${r.cpu.others.toFixed(2)}`),
  )
  if (noisy.length)
    console.log(`\nNOTE: other processes used CPU (cores) during: ${noisy.join(', ')}; those figures are noisy (a server at ~1.00 CPU still had its core).`)
  const report = { when: new Date().toISOString(), machine: { ...m, sqlite: sqliteVersion }, seed: path.basename(seedFile), opts, results, problems }
  fs.writeFileSync(path.join(outDir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`)
  if (opts.profile) {
    for (const name of opts.only) {
      const f = path.join(profDir, `taskd-${name}.cpuprofile`)
      if (fs.existsSync(f)) printProfile(f, name)
      else console.log(`no profile for ${name} (${path.relative(root, f)})`)
    }
  }
  console.log(`\nresults: ${path.relative(root, path.join(outDir, 'results.json'))}; total ${((performance.now() - started) / 1000).toFixed(0)} s`)
  if (problems.length) {
    console.log('\nPROBLEMS (figures above are not valid where listed):')
    for (const p of problems) console.log(`  ${p}`)
    process.exitCode = 1
  }
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
 * Runs the load generator; while it measures (after its warm-up), samples CPU time from /proc: the server's, the
 * generator's, and the rest of the machine's (other processes on a shared machine make the figures noisy).
 */
function runClient(opts, serverPid) {
  return new Promise((resolve, reject) => {
    const child = fork(self, ['--client', JSON.stringify(opts)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let result, before
    const sample = () => ({ t: performance.now(), all: machineBusy(), server: procCpu(serverPid), client: procCpu(child.pid), me: procCpu(process.pid) })
    child.on('message', (m) => {
      if (m.phase === 'start') {
        before = sample()
        return
      }
      result = m
      if (before) {
        const after = sample(),
          secs = (after.t - before.t) / 1000
        const d = (k) => (after[k] - before[k]) / secs
        result.cpu = { server: d('server'), client: d('client'), others: Math.max(0, d('all') - d('server') - d('client') - d('me')) }
      }
    })
    child.once('exit', (code) => (result ? resolve(result) : reject(new Error(`load generator exited ${code} without a result`))))
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
/** CPU seconds (user + system) used by one process so far. */
function procCpu(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) / HZ
  } catch {
    return 0
  }
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
if (process.argv[2] === '--taskd-child') await taskdChild(process.argv[3])
else if (process.argv[2] === '--client') await clientChild(JSON.parse(process.argv[3]))
else if (process.argv[2] === '--print-profile') printProfile(path.resolve(process.argv[3]), path.basename(process.argv[3]))
else await main(parseArgs(process.argv.slice(2)))
