// Automation benchmark: an incoming endpoint feeding a one-step automation (create_card from {webhook.body.title}).
//
//   npm run build && node bench/automations.js [--requests 3000] [--connections 16] [--rate 100] [--seconds 10]
//
// Three measurements in one run, each server on a fresh database:
//   burst   --requests JSON requests (1 KB) as fast as --connections connections send them to /v1/hooks/<path>; runs/s
//           is the number of cards made divided by the time from the first request to the last card.
//   limit   the same load against a bare node:http + better-sqlite3 server that, per request, reads and parses the
//           body and writes the request row and a card row in one transaction before answering 202: the machine's
//           floor for "accept a request and make its card". The ratio burst runs/s ÷ limit req/s is the figure.
//   paced   --rate requests a second for --seconds, below capacity: the latency from the 202 reaching the client to
//           the card's creation time (both on this machine's clock, millisecond resolution).
// taskd runs as `taskd serve` in a child process (TASKD_TRUST_PROXY=loopback: each request names another sender, as
// a reverse proxy would, so the 120-a-minute limit per sender is not what is measured); the load comes from this one.
import { spawn, fork } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Pool } from 'undici'

const self = fileURLToPath(import.meta.url)
const root = path.resolve(path.dirname(self), '..')
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const body = (i) => JSON.stringify({ event: 'form.submitted', title: `Request ${i}`, message: 'x'.repeat(960) })
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

// ---------------------------------------------------------------------------------------------------------------
// The limit server (child): one prepared transaction per request.
function limitChild(file) {
  return import('better-sqlite3').then(({ default: Database }) => {
    const db = new Database(file)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.exec(`CREATE TABLE requests (id TEXT PRIMARY KEY, ip TEXT, headers TEXT, body TEXT, at TEXT);
             CREATE TABLE cards (id TEXT PRIMARY KEY, request_id TEXT, title TEXT, created_at TEXT)`)
    const insertRequest = db.prepare('INSERT INTO requests VALUES (?, ?, ?, ?, ?)')
    const insertCard = db.prepare('INSERT INTO cards VALUES (?, ?, ?, ?)')
    let n = 0
    const accept = db.transaction((id, ip, headers, text, title) => {
      const at = new Date().toISOString()
      insertRequest.run(id, ip, headers, text, at)
      insertCard.run(`c${id}`, id, title, at)
    })
    return import('node:http').then(({ default: http }) => {
      const server = http.createServer((req, res) => {
        const chunks = []
        req.on('data', (c) => chunks.push(c))
        req.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          const id = `r${++n}`
          accept(id, req.socket.remoteAddress, JSON.stringify({ 'content-type': req.headers['content-type'] }), text, JSON.parse(text).title)
          res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: true, request_id: id }))
        })
      })
      server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
      process.on('message', (m) => {
        if (m === 'count') process.send({ cards: db.prepare('SELECT count(*) AS n, max(created_at) AS last FROM cards').get() })
        if (m === 'close') server.close(() => process.exit(0))
      })
    })
  })
}

// ---------------------------------------------------------------------------------------------------------------
async function startTaskd(dir) {
  const child = spawn(process.execPath, [path.join(root, 'bin/taskd.js'), 'serve', '--db', path.join(dir, 'taskd.db'), '--port', '0'], {
    cwd: root,
    env: { ...process.env, TASKD_DATABASE_URL: '', TASKD_MASTER_KEY: '', TASKD_TRUST_PROXY: 'loopback', TASKD_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c
      const m = /taskd listening on (\S+)/.exec(out)
      if (m) resolve(m[1])
    })
    child.once('exit', (code) => reject(new Error(`taskd exited (${code}): ${out}`)))
  })
  const token = /Setup token[^:]*: (tt_\w+)/.exec(out)[1]
  const call = async (method, p, b) => {
    const res = await fetch(url + p, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: b && JSON.stringify(b),
    })
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  return { child, url, call, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM')))) }
}

async function setupAutomation(t) {
  const { board } = await t.call('POST', '/v1/boards', { name: 'Bench' })
  const { incoming_webhook: ep } = await t.call('POST', '/v1/webhooks/incoming', { name: 'bench' })
  const { automation } = await t.call('POST', '/v1/automations', {
    name: 'to card',
    board: board.id,
    trigger: { type: 'incoming_webhook', endpoint: ep.id },
    steps: [{ type: 'create_card', title: '{webhook.body.title}' }],
  })
  return { board, path: new URL(ep.url).pathname, automation }
}

/** Sends `count` requests over `connections` connections (or at `rate` a second); each from another sender. */
async function load(url, p, { count, connections, rate }) {
  const pool = new Pool(url, { connections, pipelining: 1 })
  let next = 0
  const started = performance.now()
  const answered = new Map()
  const send = async (i) => {
    const res = await pool.request({
      path: p,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
      body: body(i),
    })
    answered.set(`Request ${i}`, Date.now())
    await res.body.text()
    if (res.statusCode !== 202) throw new Error(`request ${i}: ${res.statusCode}`)
  }
  if (rate) {
    const inflight = []
    for (let i = 0; i < count; i++) {
      const wait = started + (i / rate) * 1000 - performance.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      inflight.push(send(i))
    }
    await Promise.all(inflight)
  } else {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < count) await send(next++)
      }),
    )
  }
  const seconds = (performance.now() - started) / 1000
  await pool.close()
  return { startedAt: performance.timeOrigin + started, seconds, answered }
}

/** Waits until every request has its card; the cards' creation times by title. */
async function cardsOf(t, board, count) {
  for (;;) {
    const page = await t.call('GET', `/v1/cards?board=${board.id}&per_page=1`)
    if (page.totalItems >= count) break
    if (process.env.BENCH_DEBUG) console.error('cards', page.totalItems, 'of', count)
    await new Promise((r) => setTimeout(r, 50))
  }
  const created = new Map()
  for (let page = 1; ; page++) {
    const p = await t.call('GET', `/v1/cards?board=${board.id}&per_page=500&page=${page}`)
    for (const c of p.items) created.set(c.title, Date.parse(c.created))
    if (page >= p.totalPages) return created
  }
}

async function main() {
  const requests = arg('requests', 3000)
  const connections = arg('connections', 16)
  const rate = arg('rate', 100)
  const seconds = arg('seconds', 10)
  const load1 = () => os.loadavg()[0].toFixed(2)
  console.log(`node ${process.version}, ${os.cpus().length} CPUs, ${requests} requests over ${connections} connections; load average ${load1()}`)
  const dirs = []
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-bench-auto-'))
    dirs.push(d)
    return d
  }
  const results = {}
  try {
    // burst
    let t = await startTaskd(tmp())
    try {
      const a = await setupAutomation(t)
      const sent = await load(t.url, a.path, { count: requests, connections })
      const created = await cardsOf(t, a.board, requests)
      const runsSeconds = (Math.max(...created.values()) - sent.startedAt) / 1000
      results.burst = { requests, acceptedPerSecond: requests / sent.seconds, runsPerSecond: requests / runsSeconds }
    } finally {
      await t.stop()
    }
    // limit
    const limitDir = tmp()
    const limit = fork(self, ['--limit', path.join(limitDir, 'limit.db')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    try {
      const port = await new Promise((r) => limit.once('message', (m) => r(m.port)))
      const sent = await load(`http://127.0.0.1:${port}`, '/v1/hooks/limit', { count: requests, connections })
      results.limit = { requests, perSecond: requests / sent.seconds }
    } finally {
      limit.send('close')
    }
    // paced
    t = await startTaskd(tmp())
    try {
      const a = await setupAutomation(t)
      const count = rate * seconds
      const { answered } = await load(t.url, a.path, { count, connections, rate })
      const created = await cardsOf(t, a.board, count)
      // From the 202 reaching the client to the card's creation time (one machine, one clock; a card made before the
      // client had read its 202 counts as 0).
      const latencies = Float64Array.from([...answered].map(([title, at]) => Math.max(0, created.get(title) - at))).sort()
      results.paced = { rate, count, p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies[latencies.length - 1] }
    } finally {
      await t.stop()
    }
  } finally {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
  }
  const ratio = results.burst.runsPerSecond / results.limit.perSecond
  console.log(
    `burst: ${Math.round(results.burst.acceptedPerSecond)} accepted/s, ${Math.round(results.burst.runsPerSecond)} runs/s (hook → card, all ${requests} done)`,
  )
  console.log(`limit: ${Math.round(results.limit.perSecond)} requests/s, each with its card written before the answer`)
  console.log(`runs/s ÷ limit = ${(ratio * 100).toFixed(0)}%`)
  console.log(`paced ${rate}/s: 202 → card p50 ${results.paced.p50} ms, p99 ${results.paced.p99} ms, max ${results.paced.max} ms`)
  console.log(`load average at the end ${load1()}`)
  fs.mkdirSync(path.join(root, 'bench', 'out'), { recursive: true })
  fs.writeFileSync(path.join(root, 'bench', 'out', 'automations.json'), `${JSON.stringify({ ...results, ratio }, null, 2)}\n`)
}

if (process.argv[2] === '--limit') await limitChild(process.argv[3])
else await main()
