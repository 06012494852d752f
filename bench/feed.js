// Change feed benchmark: --waiters clients waiting on GET /v1/events (long polls, wait=30, all from one client process
// over keep-alive connections), while another process measures GET /v1/users/me one request at a time; then, --rounds
// times, one card is created and the arrival of its event at every waiter is timed (from just before the create is
// sent to the end of each waiter's answer). Each waiter is a client loop: answered, it asks again at once with the
// cursor it got, so every round starts with all of them waiting again (read off the server's taskd_feed_waiting gauge).
// Targets (issue 35): users/me p99 < 50 ms while they wait, and the event at all of them within 250 ms p99.
//
//   npm run build && node bench/feed.js [--waiters 1000] [--rounds 5] [--idle 10] [--readers 50] [--pg] [--profile]
//
// --readers: member users the waiters are spread over (each on the board, each with its own token; a token may have
// TASKD_FEED_WAITS_PER_TOKEN waiting at once, set here to what the spread needs). --idle: seconds users/me is measured
// while the waiters wait and nothing happens, before the rounds (it is measured during the rounds too). --pg: on a
// fresh database of the cluster of scripts/test-postgres.sh (taskd_bench_feed) instead of a SQLite file.
import { fork, spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const self = fileURLToPath(import.meta.url)
const here = path.dirname(self)
const root = path.resolve(here, '..')
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN)
const ms = (n) => `${n.toFixed(1)} ms`
const summary = (values) => {
  const s = [...values].sort((a, b) => a - b)
  return { n: s.length, p50: pct(s, 50), p90: pct(s, 90), p99: pct(s, 99), max: s[s.length - 1] ?? NaN }
}
/** CPU time (user + system, ms) a process has used, from /proc (Linux); NaN elsewhere. */
const cpuMs = (pid) => {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN
  }
}
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')

// ---------------------------------------------------------------------------------------------------------------
// The users/me child: a request every PROBE_MS (the next one at once when one takes longer) over one keep-alive
// connection, a probe rather than a load of its own; on 'mark' it starts a new segment, on 'report' it sends the
// latencies of each segment and exits.
const PROBE_MS = 10
function meChild(url, token) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const segments = [{ name: 'start', times: [] }]
  let stopping = false
  const once = () =>
    new Promise((resolve, reject) => {
      const t0 = performance.now()
      const req = http.get(`${url}/v1/users/me`, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume()
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`users/me ${res.statusCode}`))))
      })
      req.on('error', reject)
    })
  ;(async () => {
    while (!stopping) {
      const started = performance.now()
      segments[segments.length - 1].times.push(await once())
      const left = PROBE_MS - (performance.now() - started)
      if (left > 0) await new Promise((r) => setTimeout(r, left))
    }
  })().catch((err) => {
    console.error(err)
    process.exit(1)
  })
  process.on('disconnect', () => process.exit(0))
  process.on('message', (m) => {
    if (m.mark) segments.push({ name: m.mark, times: [] })
    if (m === 'report') {
      stopping = true
      process.send({ segments }, () => process.exit(0))
    }
  })
  process.send({ ready: true })
}

if (process.argv[2] === '--me-child') {
  meChild(process.argv[3], process.argv[4])
} else {
  await main()
}

// ---------------------------------------------------------------------------------------------------------------
async function main() {
  const waiters = arg('waiters', 1000)
  const rounds = arg('rounds', 5)
  const idleSeconds = arg('idle', 10)
  const readers = Math.max(1, Math.min(waiters, arg('readers', 50)))
  const pg = process.argv.includes('--pg')
  const outDir = path.join(here, 'out', 'feed')
  fs.rmSync(outDir, { recursive: true, force: true })
  fs.mkdirSync(outDir, { recursive: true })
  const dbFile = path.join(outDir, 'feed.db')
  const loadBefore = load()

  let databaseUrl
  let dropPg = async () => {}
  if (pg) {
    const { startPostgres, pgUrl } = await import('./seed-pg.js')
    const cluster = await startPostgres()
    if (cluster.missing) throw new Error(cluster.missing)
    const { default: pgLib } = await import('pg')
    const admin = new pgLib.Client({ connectionString: cluster.adminUrl })
    await admin.connect()
    await admin.query('DROP DATABASE IF EXISTS taskd_bench_feed WITH (FORCE)')
    await admin.query(`CREATE DATABASE taskd_bench_feed TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`)
    await admin.end()
    databaseUrl = pgUrl(cluster.adminUrl, 'taskd_bench_feed')
    dropPg = async () => {
      const c = new pgLib.Client({ connectionString: cluster.adminUrl })
      await c.connect()
      await c.query('DROP DATABASE IF EXISTS taskd_bench_feed WITH (FORCE)')
      await c.end()
      if (cluster.startedNow) await cluster.stop()
    }
  }
  const masterKey = 'ab'.repeat(32)

  // The workspace, its owner and the readers, with their tokens, through taskd's own functions.
  const dist = (p) => import(pathToFileURL(path.join(root, 'dist', 'src', p)).href)
  const [{ openDatabase }, { ensureWorkspace, insertNewUser }, { issueToken }] = await Promise.all([
    dist('db/open.js'),
    dist('resources/users/setup.js'),
    dist('resources/tokens/issue.js'),
  ])
  const setup = await openDatabase({ db: dbFile, databaseUrl, readWorkers: 0, masterKey, dbPoolSize: 2, queryTimeoutMs: 5000 })
  const at = Date.now()
  const { ownerToken, readerTokens, readerIds } = await setup.tx(async ({ q }) => {
    await ensureWorkspace(q, at)
    const owner = await insertNewUser(q, at, { email: 'owner@feed.bench.test', name: 'Owner', role: 'owner' })
    const ownerToken = (await issueToken(q, at, owner.id, { name: 'bench', permission: 'full' })).value
    const readerTokens = []
    const readerIds = []
    for (let i = 0; i < readers; i++) {
      const u = await insertNewUser(q, at, { email: `reader${i}@feed.bench.test`, name: `Reader ${i}`, role: 'member' })
      readerIds.push(u.id)
      readerTokens.push((await issueToken(q, at, u.id, { name: 'feed', permission: 'read' })).value)
    }
    return { ownerToken, readerTokens, readerIds }
  })
  await setup.close()

  // The server, as users start it.
  const perToken = Math.ceil(waiters / readers)
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TASKD_'))),
    TASKD_LOG_LEVEL: 'error',
    TASKD_MASTER_KEY: masterKey,
    TASKD_FEED_WAITS_PER_TOKEN: String(perToken),
    TASKD_FEED_WAITS: String(Math.max(10_000, waiters)),
    // --profile: the server under node --cpu-prof; summarise with node bench/run.js --print-profile <file>.
    ...(process.argv.includes('--profile') && { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.join(outDir, 'prof')}` }),
  }
  const server = spawn(process.execPath, [path.join(root, 'bin', 'taskd.js'), 'serve', '--db', databaseUrl ?? dbFile, '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  process.once('exit', () => server.kill('SIGKILL'))
  const url = await new Promise((resolve, reject) => {
    let out = ''
    server.stdout.on('data', (c) => {
      if (out === undefined) return
      out += c
      const m = /taskd listening on (http:\/\/\S+)/.exec(out)
      if (m) {
        out = undefined
        resolve(m[1])
      }
    })
    server.once('exit', (code) => reject(new Error(`taskd exited (${code})`)))
  })

  // The waiters' client: undici (taskd's own HTTP client), keep-alive connections, one request on each at a time.
  const { Agent, request: send } = await import('undici')
  const agent = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000, pipelining: 1 })
  const fetchText = async (method, p, token, body) => {
    const data = body === undefined ? undefined : JSON.stringify(body)
    const res = await send(`${url}${p}`, {
      method,
      dispatcher: agent,
      headers: { ...(token && { authorization: `Bearer ${token}` }), ...(data && { 'content-type': 'application/json' }) },
      body: data,
    })
    return { status: res.statusCode, text: await res.body.text() }
  }
  const request = async (method, p, token, body) => {
    const { status, text } = await fetchText(method, p, token, body)
    if (status >= 300) throw new Error(`${method} ${p}: ${status} ${text}`)
    return text ? JSON.parse(text) : undefined
  }
  const gauge = async () => Number(/^taskd_feed_waiting (\d+)/m.exec((await fetchText('GET', '/metrics')).text)?.[1] ?? NaN)
  const until = async (what, probe, timeoutMs = 60_000, everyMs = 20) => {
    const started = Date.now()
    while (!(await probe())) {
      if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, everyMs))
    }
  }

  const board = (await request('POST', '/v1/boards', ownerToken, { name: 'Feed', key_prefix: 'FEED' })).board
  for (const id of readerIds) await request('POST', `/v1/boards/${board.id}/members`, ownerToken, { user: id })

  // The users/me loop, in a process of its own (its timing is not the waiters' client's event loop).
  const me = fork(self, ['--me-child', url, ownerToken], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  await new Promise((resolve) => me.once('message', resolve))
  const mark = (name) => me.send({ mark: name })

  // The waiters: a client loop each; an answer with items is an arrival.
  const start = (await request('GET', '/v1/events?after=now', ownerToken)).next
  let round = -1
  let sentAt = 0
  const arrivals = [] // per round: ms from the create being sent to each waiter's answer
  const cpu = [] // per round: CPU ms of the server and of this client from the create to the last arrival
  const errors = []
  let stopped = false
  const loop = async (i) => {
    let cursor = start
    const token = readerTokens[i % readers]
    while (!stopped) {
      try {
        const page = await request('GET', `/v1/events?after=${cursor}&wait=30`, token)
        if (page.items.length > 0 && round >= 0) arrivals[round].push(performance.now() - sentAt)
        cursor = page.next
        // As a client of its own would: the answers that came together are all timed before any asks again.
        await new Promise((r) => setImmediate(r))
      } catch (err) {
        if (!stopped) errors.push(err.message)
        if (errors.length > 10) return
      }
    }
  }
  mark('arming')
  const loops = Array.from({ length: waiters }, (_, i) => loop(i))
  const armStarted = performance.now()
  await until(`${waiters} waiters`, async () => (await gauge()) === waiters)
  const armMs = performance.now() - armStarted
  mark('idle')
  await new Promise((r) => setTimeout(r, idleSeconds * 1000))
  mark('rounds')
  for (round = 0; round < rounds; round++) {
    arrivals.push([])
    await until(`all waiters back (round ${round + 1})`, async () => (await gauge()) === waiters && arrivals[round].length === 0)
    const cpu0 = { server: cpuMs(server.pid), client: process.cpuUsage() }
    sentAt = performance.now()
    await request('POST', '/v1/cards', ownerToken, { board: board.id, title: `Round ${round + 1}` })
    await until(`round ${round + 1}'s event at every waiter`, () => arrivals[round].length >= waiters || errors.length > 0, 60_000, 1)
    const client = process.cpuUsage(cpu0.client)
    cpu.push({ server: cpuMs(server.pid) - cpu0.server, client: (client.user + client.system) / 1000 })
    if (errors.length > 0) break
    // A pause between rounds, so they measure a quiet server (and users/me sees both).
    await new Promise((r) => setTimeout(r, 500))
  }
  mark('end')
  const segments = await new Promise((resolve) => {
    me.once('message', (m) => resolve(m.segments))
    me.send('report')
  })
  stopped = true
  server.kill('SIGTERM')
  await new Promise((r) => server.once('exit', r))
  await agent.destroy()
  await Promise.allSettled(loops)
  await dropPg()

  const loadAfter = load()
  console.log(`\nchange feed: ${waiters} waiters (${readers} member tokens) on ${pg ? 'PostgreSQL' : 'SQLite'}, ${rounds} rounds`)
  console.log(`node ${process.version}, ${os.cpus().length} CPUs, load average before ${loadBefore}, after ${loadAfter}`)
  console.log(`all ${waiters} waiting after ${ms(armMs)}`)
  for (const seg of segments.filter((s) => ['idle', 'rounds'].includes(s.name))) {
    const s = summary(seg.times)
    console.log(`users/me ${seg.name.padEnd(6)}: ${s.n} requests, p50 ${ms(s.p50)}, p90 ${ms(s.p90)}, p99 ${ms(s.p99)}, max ${ms(s.max)}`)
  }
  const all = arrivals.flat()
  arrivals.forEach((a, i) => {
    const s = summary(a)
    const c = cpu[i] ?? {}
    console.log(
      `round ${i + 1}: event at ${s.n} waiters, p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)}; CPU server ${c.server?.toFixed(0)} ms, client ${c.client?.toFixed(0)} ms`,
    )
  })
  const s = summary(all)
  console.log(`all rounds: p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)}`)
  const idle = summary(segments.find((x) => x.name === 'idle')?.times ?? [])
  const problems = [
    ...errors.slice(0, 3),
    ...(idle.p99 >= 50 ? [`users/me p99 ${ms(idle.p99)} while waiting (target < 50 ms)`] : []),
    ...(s.p99 >= 250 ? [`event arrival p99 ${ms(s.p99)} (target < 250 ms)`] : []),
  ]
  fs.writeFileSync(
    path.join(outDir, 'results.json'),
    JSON.stringify(
      {
        waiters,
        readers,
        rounds,
        pg,
        loadBefore,
        loadAfter,
        armMs,
        segments: segments.map((x) => ({ name: x.name, ...summary(x.times) })),
        arrivals: arrivals.map(summary),
        cpu,
      },
      null,
      2,
    ),
  )
  if (problems.length) {
    console.log(`\nPROBLEMS\n  ${problems.join('\n  ')}`)
    process.exitCode = 1
  }
}
