// Outgoing-webhook benchmark: 10,000 card.created events to one local subscription; deliveries/s and commit-to-receipt latency.
//
//   npm run build && node bench/webhooks.js [--events 10000] [--rate 1000] [--concurrency 64] [--only burst,paced]
//
// Runs, each on a fresh database: "drain" (10,000 events committed while the scheduler is stopped, then delivered:
// deliveries/s of the delivery engine alone), "burst" (events committed as fast as cards can be created while they
// are delivered: end to end), "paced" (events at --rate per second, below capacity: commit-to-receipt latency), and
// "failing" (drain while the receiver answers 500 to 20% of requests, 50 ms retry delays: every event still
// delivered). Latency of the drain runs counts the time spent queued behind the backlog. The receiver runs in
// its own process so it does not share the delivering event loop; both sides stamp times with
// performance.timeOrigin + performance.now(), which agree across processes on one machine.
import { fork } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const self = fileURLToPath(import.meta.url)
const root = path.resolve(path.dirname(self), '..')
const now = () => performance.timeOrigin + performance.now()
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}

// ---------------------------------------------------------------------------------------------------------------
// Receiver child: answers every delivery, or 500 to 20% of requests (never a 4th time for one delivery, so the
// five-attempt budget always suffices), and reports what it saw when asked.
function receiverChild(failRate) {
  const seen = [] // [deliveryId, cardId, receivedAt, status]
  const failures = new Map()
  const delivered = new Set()
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const t = now()
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const failed = failures.get(body.id) ?? 0
      const status = failed < 3 && Math.random() < failRate ? 500 : 200
      if (status === 500) failures.set(body.id, failed + 1)
      else delivered.add(body.id)
      seen.push([body.id, body.data.id, t, status])
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try again')
    })
  })
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
  process.on('message', (m) => {
    if (m === 'count') process.send({ delivered: delivered.size })
    if (m === 'report') process.send({ seen }, () => process.exit(0))
  })
}

// ---------------------------------------------------------------------------------------------------------------
async function startReceiver(failRate) {
  const child = fork(self, ['--receiver', String(failRate)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)))
  const ask = (msg, key) =>
    new Promise((resolve) => {
      const on = (m) => {
        if (key in m) {
          child.off('message', on)
          resolve(m[key])
        }
      }
      child.on('message', on)
      child.send(msg)
    })
  return { url: `http://127.0.0.1:${port}/hook`, count: () => ask('count', 'delivered'), report: () => ask('report', 'seen') }
}

// taskd's compiled modules; loaded by the main process only (the receiver child needs none of them).
let taskd
async function loadTaskd() {
  const load = (p) => import(pathToFileURL(path.join(root, 'dist', 'src', p)).href)
  const mods = await Promise.all(
    [
      'config.js',
      'db/open.js',
      'server.js',
      'clock.js',
      'resources/users/service.js',
      'resources/boards/service.js',
      'resources/cards/service.js',
      'resources/webhooks/service.js',
      'webhooks/scheduler.js',
      'webhooks/send.js',
    ].map(load),
  )
  taskd = Object.assign({}, ...mods)
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
const fmt = (ms) => `${ms.toFixed(1)} ms`

async function run({ name, events, rate, failRate, concurrency, drain }) {
  const {
    loadConfig,
    openDatabase,
    createDeps,
    systemClock,
    insertNewUser,
    ensureWorkspace,
    createBoard,
    createCard,
    createWebhook,
    OutboxScheduler,
    closeDeliveryAgents,
  } = taskd
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskd-bench-webhooks-'))
  const db = path.join(dir, 'taskd.db')
  const retry = failRate > 0 ? '0.05' : '60,120,300,1800'
  const config = loadConfig({ db, allowPrivateTargets: 'true', webhookRetryDelays: retry, logLevel: 'error' }, {})
  const database = await openDatabase(config)
  const deps = createDeps(database, config, systemClock)
  const scheduler = new OutboxScheduler(deps, { concurrency })
  deps.onOutboxWrite = () => scheduler.wake()
  const receiver = await startReceiver(failRate)
  const owner = await database.tx(async ({ q }) => {
    await ensureWorkspace(q, Date.now())
    return insertNewUser(q, Date.now(), { email: 'bench@localhost', name: 'Bench', role: 'owner' })
  })
  const actor = { user: owner, tokenId: 'bench', permission: 'write' }
  const { board } = await createBoard(deps, actor, { name: 'Bench' })
  await createWebhook(deps, actor, { name: 'bench', url: receiver.url, events: ['card.created'], boards: [], secret: 'bench-secret' })
  if (!drain) scheduler.start()

  const committed = new Map()
  let t0 = now()
  for (let i = 0; i < events;) {
    // Yield between small batches, as a server does between requests, so deliveries interleave with commits.
    const batch = rate ? Math.max(1, Math.round(rate / 100)) : 50
    for (let j = 0; j < batch && i < events; j++, i++) {
      const { card } = await createCard(deps, actor, { board: board.id, title: `card ${i}` })
      committed.set(card.id, now())
    }
    if (rate) {
      const wait = t0 + (i / rate) * 1000 - now()
      await new Promise((r) => (wait > 0 ? setTimeout(r, wait) : setImmediate(r)))
    } else await new Promise((r) => setImmediate(r))
  }
  const producedIn = now() - t0
  if (drain) {
    t0 = now()
    scheduler.start()
  }
  while ((await receiver.count()) < events) await new Promise((r) => setTimeout(r, 20))
  const seen = await receiver.report()
  await scheduler.stop(5000)
  await closeDeliveryAgents()

  const firstOk = new Map()
  for (const [, card, t, status] of seen) if (status === 200 && !firstOk.has(card)) firstOk.set(card, t)
  const latencies = Float64Array.from([...firstOk].map(([card, t]) => t - committed.get(card))).sort()
  const lastReceipt = Math.max(...firstOk.values())
  const logs = database.raw.prepare("SELECT count(*) AS n FROM outbox WHERE status = 'delivered'").get().n
  const wal = fs.existsSync(`${db}-wal`) ? fs.statSync(`${db}-wal`).size : 0
  await database.close()
  fs.rmSync(dir, { recursive: true, force: true })
  return {
    name,
    events,
    delivered: firstOk.size,
    recordedDelivered: logs,
    requests: seen.length,
    failedRequests: seen.filter((s) => s[3] !== 200).length,
    seconds: (lastReceipt - t0) / 1000,
    producedSeconds: producedIn / 1000,
    perSecond: firstOk.size / ((lastReceipt - t0) / 1000),
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    max: latencies[latencies.length - 1],
    walBytes: wal,
  }
}

async function main() {
  const events = arg('events', 10_000)
  const rate = arg('rate', 1000)
  const concurrency = arg('concurrency', 64)
  await loadTaskd()
  // The load average says whether other work shared the machine during the run; figures from a busy host understate taskd.
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${events} card.created events, concurrency ${concurrency}, load average ${load()}`,
  )
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(',') : undefined
  const results = []
  for (const spec of [
    { name: 'drain', events, rate: 0, failRate: 0, concurrency, drain: true },
    { name: 'burst', events, rate: 0, failRate: 0, concurrency },
    { name: `paced ${rate}/s`, events, rate, failRate: 0, concurrency },
    { name: 'drain, 20% 500s', events, rate: 0, failRate: 0.2, concurrency, drain: true },
  ].filter((s) => !only || only.some((o) => s.name.startsWith(o)))) {
    const r = await run(spec)
    results.push(r)
    console.log(
      `${r.name.padEnd(18)} delivered ${r.delivered}/${r.events} (recorded ${r.recordedDelivered}) in ${r.seconds.toFixed(2)} s` +
        ` = ${Math.round(r.perSecond)} deliveries/s; commit→receipt p50 ${fmt(r.p50)}, p99 ${fmt(r.p99)}, max ${fmt(r.max)};` +
        ` ${r.requests} requests, ${r.failedRequests} answered 500; events committed in ${r.producedSeconds.toFixed(2)} s; WAL ${(r.walBytes / 1e6).toFixed(1)} MB`,
    )
  }
  console.log(`load average at the end ${load()}`)
  fs.mkdirSync(path.join(root, 'bench', 'out'), { recursive: true })
  fs.writeFileSync(path.join(root, 'bench', 'out', 'webhooks.json'), JSON.stringify(results, null, 2))
}

if (process.argv[2] === '--receiver') receiverChild(Number(process.argv[3]))
else await main()
