// GET /metrics in the Prometheus text format, one registry per app: requests by method, route pattern and status,
// latency histograms, webhook deliveries by outcome (counted as this process records them), and what the database
// holds at scrape time (the outbox backlog and the age of its oldest row, runs and kickoffs by status, the size), and
// the change feed requests waiting in this process.
// With TASKD_METRICS_TOKEN set it asks for that bearer token; without, it answers only this machine: a loopback socket
// and no X-Forwarded-For, Forwarded or X-Real-IP header (a reverse proxy on this machine would make any client loopback).
import type { RequestHandler } from 'express'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { databaseBytes } from '../db/dialect.js'
import type { Deps } from '../deps.js'
import { forbidden, unauthorized } from '../errors.js'
import { fromLoopback } from '../http/rate-limit.js'
import type { RequestEntry } from '../log.js'
import { kickoffsByStatus } from '../resources/agent-kickoffs/store.js'
import { runsByStatus } from '../resources/automations/store.js'
import type { Settlement } from '../delivery/deliver.js'
import { timingSafeEqualStr } from '../delivery/signing.js'
import { outboxBacklog } from '../delivery/store.js'

export class Metrics {
  readonly registry = new Registry()
  private readonly requests: Counter<'method' | 'route' | 'status'>
  private readonly latency: Histogram<'method' | 'route'>
  private readonly deliveries: Counter<'outcome'>

  constructor(deps: Deps) {
    const registers = [this.registry]
    this.requests = new Counter({
      name: 'taskd_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern (unmatched for no route) and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    })
    this.latency = new Histogram({
      name: 'taskd_http_request_duration_seconds',
      help: 'Time from a request arriving to its response ending, by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    })
    // A counter in the process, not a count over the delivery log: the log keeps the last 25 attempts per subscription
    // and finished outbox rows go after a day, so counts over them would fall. Prometheus takes a restart's reset in its stride.
    this.deliveries = new Counter({
      name: 'taskd_webhook_deliveries_total',
      help: 'Webhook delivery attempts this process recorded, by outcome (delivered, retrying, failed, dropped).',
      labelNames: ['outcome'],
      registers,
    })
    // Both outbox gauges come from one query: prom-client collects a scrape's metrics together, so the first to ask
    // starts the query and the other awaits the same answer; the next scrape asks again.
    let backlog: ReturnType<typeof outboxBacklog> | undefined
    const readBacklog = () => (backlog ??= outboxBacklog(deps.db.q).finally(() => (backlog = undefined)))
    new Gauge({
      name: 'taskd_outbox_pending',
      help: 'Webhook deliveries waiting in the outbox (due now or retrying later).',
      registers,
      async collect() {
        this.set((await readBacklog()).pending)
      },
    })
    new Gauge({
      name: 'taskd_outbox_oldest_pending_age_seconds',
      help: 'How long the oldest waiting delivery has been in the outbox; 0 when none waits.',
      registers,
      async collect() {
        const { oldest } = await readBacklog()
        this.set(oldest === undefined ? 0 : Math.max(0, (deps.clock.now() - Date.parse(oldest)) / 1000))
      },
    })
    const byStatus = (name: string, help: string, read: () => Promise<Map<string, number>>) =>
      new Gauge({
        name,
        help,
        labelNames: ['status'],
        registers,
        async collect() {
          const counts = await read()
          this.reset()
          for (const [status, n] of counts) this.set({ status }, n)
        },
      })
    byStatus('taskd_automation_runs', 'Automation runs kept, by status.', () => runsByStatus(deps.db))
    byStatus('taskd_agent_kickoffs', 'Agent kickoffs, by status.', () => kickoffsByStatus(deps.db))
    new Gauge({
      name: 'taskd_feed_waiting',
      help: 'Change feed requests (GET /v1/events with wait) waiting for events in this process.',
      registers,
      collect() {
        this.set(deps.feedWaiters.keys().length)
      },
    })
    new Gauge({
      name: 'taskd_database_size_bytes',
      help: 'The size of the database (SQLite: its pages; PostgreSQL: pg_database_size).',
      registers,
      async collect() {
        this.set(await databaseBytes(deps.db.q))
      },
    })
  }

  /** A request answered (requestLog calls it for every one). */
  observe(entry: RequestEntry): void {
    this.requests.inc({ method: entry.method, route: entry.route, status: String(entry.status) })
    this.latency.observe({ method: entry.method, route: entry.route }, entry.duration_ms / 1000)
  }

  /** A batch of webhook attempts recorded (the outbox scheduler's onRecorded). */
  countDeliveries(batch: readonly Settlement[]): void {
    // A settlement without a log row went with its deleted subscription: dropped.
    for (const s of batch) this.deliveries.inc({ outcome: s.log?.outcome ?? 'dropped' })
  }
}

/** Headers a reverse proxy adds: a request carrying one came from elsewhere, whatever its socket says. */
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip']

export function metricsHandler(deps: Deps, metrics: Metrics): RequestHandler {
  return async (req, res) => {
    const token = deps.config.metricsToken
    if (token !== undefined) {
      const sent = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1]
      if (sent === undefined || !timingSafeEqualStr(sent, token)) throw unauthorized('GET /metrics needs "Authorization: Bearer <TASKD_METRICS_TOKEN>".')
    } else if (!fromLoopback(req) || PROXY_HEADERS.some((h) => req.headers[h] !== undefined)) {
      throw forbidden(
        'GET /metrics without TASKD_METRICS_TOKEN answers only this machine, never a request through a proxy; set TASKD_METRICS_TOKEN to scrape it with that bearer token.',
      )
    }
    const text = await metrics.registry.metrics()
    res.setHeader('Content-Type', metrics.registry.contentType)
    res.setHeader('Cache-Control', 'no-store')
    res.end(text)
  }
}
