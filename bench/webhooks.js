// Outgoing-webhook benchmark: 10,000 card.created events to one local subscription; deliveries/s and commit-to-receipt latency.
//
//   npm run build && node bench/webhooks.js [--events 10000] [--rate 1000] [--concurrency 64] [--creators 32] [--only burst,paced]
//
// Runs, each on a fresh database: "drain" (10,000 events committed by --creators concurrent creators while the scheduler
// is stopped, then delivered: deliveries/s of the delivery engine alone; the commit phase gives "cards created alone"),
// "burst" (one creator, 50 cards between turns of the event loop, while they are delivered), "burst, 32 creators"
// (--creators concurrent creators, a turn after each card like a server's requests, as fast as cards can be created:
// end to end, the scenario of the target ≥ 2,000 deliveries/s with p99 < 250 ms), "paced" (events at --rate per
// second from one creator: commit-to-receipt latency), and "failing" (drain while the receiver answers 500 to 20% of
// requests, 50 ms retry delays: every event still delivered). Then a bare sender gives the limit of sending alone.
// Latency of the drain runs counts the time spent queued behind the backlog. The receiver runs in its own process so
// it does not share the delivering event loop; both sides stamp times with performance.timeOrigin + performance.now(),
// which agree across processes on one machine.
import { fork } from 'node:child_process'
import { createHash, createHmac } from 'node:crypto'
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
  process.on('disconnect', () => process.exit(0)) // never outlive the bench (one that failed before asking for the report)
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
      'resources/users/setup.js',
      'resources/boards/service.js',
      'resources/cards/service.js',
      'resources/webhooks/service.js',
      'delivery/scheduler.js',
      'delivery/send.js',
    ].map(load),
  )
  taskd = Object.assign({}, ...mods)
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
const fmt = (ms) => `${ms.toFixed(1)} ms`

async function run({ name, events, rate, failRate, concurrency, drain, creators = 1 }) {
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
  if (!drain) {
    // A server starts its scheduler at boot, well before the first event: so does the bench (the scheduler then
    // starts the sending thread, as a subscription is active).
    scheduler.start()
    await new Promise((r) => setTimeout(r, 500))
  }

  const committed = new Map()
  let t0 = now()
  let made = 0
  const create = async () => {
    const { card } = await createCard(deps, actor, { board: board.id, title: `card ${made++}` })
    committed.set(card.id, now())
  }
  if (creators > 1) {
    // Like a server's concurrent requests: each creator gives the event loop a turn after each card.
    await Promise.all(
      Array.from({ length: creators }, async () => {
        while (made < events) {
          await create()
          await new Promise((r) => setImmediate(r))
        }
      }),
    )
  } else {
    while (made < events) {
      // Yield between small batches, as a server does between requests, so deliveries interleave with commits.
      const batch = rate ? Math.max(1, Math.round(rate / 100)) : 50
      for (let j = 0; j < batch && made < events; j++) await create()
      if (rate) {
        const wait = t0 + (made / rate) * 1000 - now()
        await new Promise((r) => (wait > 0 ? setTimeout(r, wait) : setImmediate(r)))
      } else await new Promise((r) => setImmediate(r))
    }
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
  const bodyBytes = Math.round(database.raw.prepare('SELECT avg(length(body)) AS n FROM outbox').get().n)
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
    bodyBytes,
  }
}

/**
 * The limit of sending on this machine: a bare loop of HMAC-signed POSTs through undici (what the sending thread uses),
 * `concurrency` at a time, bodies of `bodyBytes`, to the same receiver; nothing is read from or written to a database.
 */
async function bareSender(events, concurrency, bodyBytes) {
  const { Agent, request } = await import('undici')
  const receiver = await startReceiver(0)
  const agent = new Agent()
  let next = 0
  const t0 = now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < events) {
        const i = next++
        const head = JSON.stringify({ id: `d${i}`, event: 'card.created', data: { id: `c${i}`, title: '' } })
        const body = head.replace('"title":""', `"title":"${'x'.repeat(Math.max(0, bodyBytes - head.length))}"`)
        // Both signatures taskd sends (src/delivery/headers.ts): the HMAC and the legacy SHA-256 of body + secret.
        const signature = 'sha256=' + createHmac('sha256', 'bench-secret').update(body).digest('hex')
        const legacy = createHash('sha256').update(body).update('bench-secret').digest('hex')
        const res = await request(receiver.url, {
          method: 'POST',
          dispatcher: agent,
          body,
          headers: { 'content-type': 'application/json', 'x-webhook-delivery': `d${i}`, 'x-service-signature': signature, 'x-webhook-signature': legacy },
        })
        await res.body.text()
      }
    }),
  )
  const seconds = (now() - t0) / 1000
  await receiver.report()
  await agent.close()
  return { name: 'bare sender', events, seconds, perSecond: events / seconds }
}

async function main() {
  const events = arg('events', 10_000)
  const rate = arg('rate', 1000)
  const concurrency = arg('concurrency', 64)
  const creators = arg('creators', 32)
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
  // Names are matched by their start; a comma followed by a space belongs to a name ("burst, 32"), others separate names.
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(/,(?! )/) : undefined
  const results = []
  for (const spec of [
    { name: 'drain', events, rate: 0, failRate: 0, concurrency, drain: true, creators },
    { name: 'burst', events, rate: 0, failRate: 0, concurrency },
    { name: `burst, ${creators} creators`, events, rate: 0, failRate: 0, concurrency, creators },
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
  // Ratios in one run, as the project's benches report them: to the bare sender (the delivery engine's cost) and to cards
  // created alone (what delivering costs the event loop that creates them: 1.00 means nothing).
  const by = (name) => results.find((r) => r.name === name)
  const drainRun = by('drain') ?? results.find((r) => r.bodyBytes)
  if (drainRun) {
    const bare = await bareSender(events, concurrency, drainRun.bodyBytes)
    results.push(bare)
    console.log(`${bare.name.padEnd(18)} ${events} signed POSTs of ${drainRun.bodyBytes} bytes, ${concurrency} at a time: ${Math.round(bare.perSecond)}/s`)
    const alone = by('drain') && events / by('drain').producedSeconds
    if (alone) console.log(`cards created alone (drain: ${creators} creators, scheduler stopped): ${Math.round(alone)}/s`)
    for (const r of results.filter((x) => x.p99 !== undefined)) {
      const ratios = [`x/bare sender ${(r.perSecond / bare.perSecond).toFixed(2)}`]
      if (alone && r.name === `burst, ${creators} creators`) ratios.push(`x/cards created alone ${(r.perSecond / alone).toFixed(2)}`)
      if (r.name.startsWith('burst')) ratios.push(`target ≥ 2,000/s and p99 < 250 ms: ${r.perSecond >= 2000 && r.p99 < 250 ? 'met' : 'NOT met'}`)
      console.log(`  ${r.name.padEnd(18)} ${Math.round(r.perSecond)} deliveries/s, p99 ${fmt(r.p99)}: ${ratios.join(', ')}`)
    }
  }
  console.log(`load average at the end ${load()}`)
  fs.mkdirSync(path.join(root, 'bench', 'out'), { recursive: true })
  fs.writeFileSync(path.join(root, 'bench', 'out', 'webhooks.json'), JSON.stringify(results, null, 2))
}

if (process.argv[2] === '--receiver') receiverChild(Number(process.argv[3]))
else await main()
