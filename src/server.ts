// Starts taskd: open the database, first-run setup, listen, and shut down gracefully.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApp } from './app.js'
import { answerClientErrors } from './http/client-errors.js'
import { systemClock, type Clock } from './clock.js'
import { httpUrl, publicBaseUrl, type Config } from './config.js'
import { loadSecretBox } from './crypto.js'
import { openDatabase } from './db/open.js'
import type { Db } from './db/database.js'
import type { Deps } from './deps.js'
import { Housekeeping } from './housekeeping.js'
import { createLogger } from './log.js'
import { Metrics } from './ops/metrics.js'
import { issueToken, ownerBeforeFirstUse, tokenDetails } from './resources/tokens/issue.js'
import { audit, SYSTEM } from './resources/audit/record.js'
import { issueLoginLinkIn } from './resources/sessions/accounts.js'
import { ensureWorkspace, insertNewUser, isWorkspaceEmpty } from './resources/users/setup.js'
import { KickoffDispatcher } from './resources/agent-kickoffs/dispatcher.js'
import { AutomationRunner } from './resources/automations/runner.js'
import { queueEventRuns } from './resources/automations/triggers.js'
import { announcePausedWebhooks } from './resources/webhooks/health.js'
import { OutboxScheduler } from './delivery/scheduler.js'
import { Waiters } from './waiters.js'
import { ALL, JOB_KICKOFFS, JOB_RUNS } from './db/wakes.js'
import { takePidFile } from './pid-file.js'
import { closeDeliveryAgents } from './delivery/send.js'

/** How long shutdown waits for webhook attempts in flight; what is still running then is resent after restart. */
const SHUTDOWN_GRACE_MS = 10_000

export interface Running {
  server: http.Server
  deps: Deps
  scheduler: OutboxScheduler
  runner: AutomationRunner
  dispatcher: KickoffDispatcher
  port: number
  setupToken?: string
  close(): Promise<void>
}

/**
 * On an empty database: the workspace, an owner, a one-time Full Access token (both in the audit log, by taskd), and
 * (with `link`) a single-use login link for the owner to open the web app with.
 */
export function firstRunSetup(
  deps: Deps,
  link?: { minutes: number; baseUrl: string },
): Promise<{ email: string; token: string; loginLink?: string } | undefined> {
  const now = deps.clock.now()
  return deps.db.tx(async (tx) => {
    const { q } = tx
    await ensureWorkspace(q, now)
    if (!(await isWorkspaceEmpty(q))) return undefined
    const owner = await insertNewUser(q, now, { email: 'owner@localhost', name: 'Owner', role: 'owner' })
    await audit(deps, tx, SYSTEM, 'user.created', owner, { details: { role: owner.role, first_run: true } })
    const { value, token } = await issueToken(q, now, owner.id, { name: 'setup', permission: 'full' })
    await audit(deps, tx, SYSTEM, 'token.created', token, { details: tokenDetails(token) })
    const loginLink = link ? (await issueLoginLinkIn(deps, tx, owner, { ...link, via: 'setup' })).url : undefined
    return { email: owner.email, token: value, loginLink }
  })
}

/** The one place Deps are assembled, for the server and for tests. */
export function createDeps(db: Db, config: Config, clock: Clock, secrets = secretsFor(config)): Deps {
  return {
    db,
    config,
    clock,
    onOutboxWrite: () => {},
    onRunsQueued: () => {},
    onKickoffsQueued: () => {},
    claimWaiters: new Waiters(),
    feedWaiters: new Waiters(),
    onEvents: queueEventRuns,
    onWebhooksPaused: announcePausedWebhooks,
    secrets,
  }
}

/** The secret box: TASKD_MASTER_KEY, or (SQLite only) the key file beside the database. */
const secretsFor = (config: Config) => loadSecretBox(config.databaseUrl ? undefined : config.db, config.masterKey)

/**
 * Commits in the other processes on this database (PostgreSQL) wake this one's workers and claim long polls, as this
 * process's own commits do through the hooks on Deps: outbox rows, automation runs and kickoffs to attempt, kickoffs
 * a claimer here may take. Each subscription opens nothing by itself; the first opens the LISTEN connection.
 */
function wakeAcrossProcesses(deps: Deps, running: Readonly<Record<'scheduler' | 'runner' | 'dispatcher', boolean>>): void {
  const { wakes } = deps.db
  if (running.scheduler) wakes.on('outbox', () => deps.onOutboxWrite())
  wakes.on('jobs', (items) => {
    const all = items.includes(ALL)
    if (running.runner && (all || items.includes(JOB_RUNS))) deps.onRunsQueued()
    if (running.dispatcher && (all || items.includes(JOB_KICKOFFS))) deps.onKickoffsQueued()
  })
  wakes.on('claims', (items) => {
    const agents = items.includes(ALL) ? [...deps.claimWaiters.keys()] : items
    deps.claimWaiters.notify(agents)
  })
}

/** Why the server could not take its address, said so that the reader knows what to change. */
function listenFailure(err: unknown, config: Config): Error {
  const code = (err as NodeJS.ErrnoException)?.code
  const at = `${config.host}:${config.port}`
  if (code === 'EADDRINUSE')
    return new Error(`cannot listen on ${at}: the port is already in use. Stop what uses it, or choose another port with --port (or TASKD_PORT).`)
  if (code === 'EACCES') return new Error(`cannot listen on ${at}: not allowed to use this port. Choose one above 1023 with --port (or TASKD_PORT).`)
  if (code === 'EADDRNOTAVAIL') return new Error(`cannot listen on ${at}: this machine has no such address. Choose another with --host (or TASKD_HOST).`)
  return err instanceof Error ? err : new Error(String(err))
}

export async function startServer(config: Config, opts: { clock?: Clock; print?: (line: string) => void } = {}): Promise<Running> {
  const clock = opts.clock ?? systemClock
  const print = opts.print ?? ((line: string) => process.stdout.write(`${line}\n`))
  const logger = createLogger(config.logLevel, config.logFormat)
  const secrets = secretsFor(config) // before the database: a missing key stops the start before anything is written
  // One server per SQLite file, and `taskd restore` refuses to replace the file under it (taken before it is opened).
  const removePidFile = config.databaseUrl || config.db === ':memory:' ? undefined : takePidFile(config.db, 'stop it first, or serve another --db')
  const db = await openDatabase({ ...config, log: logger.error })
  const deps = createDeps(db, config, clock, secrets)
  const metrics = new Metrics(deps)
  const { pollMs } = config
  const scheduler = new OutboxScheduler(deps, { log: logger.error, onRecorded: (batch) => metrics.countDeliveries(batch), pollMs })
  deps.onOutboxWrite = () => scheduler.wake()
  const runner = new AutomationRunner(deps, { log: logger.error, pollMs })
  deps.onRunsQueued = () => runner.wake()
  const dispatcher = new KickoffDispatcher(deps, { log: logger.error, pollMs })
  deps.onKickoffsQueued = () => dispatcher.wake()
  const running = {
    scheduler: config.workers.includes('outbox'),
    runner: config.workers.includes('automations'),
    dispatcher: config.workers.includes('kickoffs'),
  }
  // Readiness checks the workers this process runs (TASKD_WORKERS).
  const workers = {
    ...(running.scheduler && { scheduler: scheduler.pump }),
    ...(running.runner && { runner: runner.pump }),
    ...(running.dispatcher && { dispatcher: dispatcher.pump }),
  }
  const { app, api } = createApp(deps, { logger, metrics, workers })
  const server = http.createServer(app)
  answerClientErrors(server)
  server.keepAliveTimeout = 5000
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(config.port, config.host, () => resolve())
    })
  } catch (err) {
    await db.close()
    removePidFile?.()
    throw listenFailure(err, config)
  }
  const port = (server.address() as AddressInfo).port
  // `--port 0` picks a free port: links and incoming URLs name the one it picked (the services read deps.config).
  if (config.port !== port) deps.config = Object.freeze({ ...config, port })
  // Only once the port is ours: a start that cannot listen must not make the one-time token it could never show.
  const setup = await firstRunSetup(deps, { minutes: config.loginLinkMinutes, baseUrl: publicBaseUrl(deps.config) })
  if (setup) {
    print(`Created the workspace and its owner (${setup.email}).`)
    print(`Setup token (Full Access, shown only once): ${setup.token}`)
    print(`Open the web app and sign in (a link usable once, for ${config.loginLinkMinutes} minutes): ${setup.loginLink}`)
  }
  if (running.scheduler) scheduler.start()
  if (running.runner) runner.start()
  if (running.dispatcher) dispatcher.start()
  wakeAcrossProcesses(deps, running)
  await deps.db.wakes.ready // other processes' commits wake this one from now on
  const housekeeping = new Housekeeping(deps, logger.error)
  housekeeping.start()
  const listening = httpUrl(config.host, port)
  if (setup) {
    print(`API docs: ${(config.baseUrl ?? listening).replace(/\/+$/, '')}/v1/docs/`)
    print(`Try it: curl -s ${listening}/v1/users/me -H "Authorization: Bearer ${setup.token}"`)
  } else {
    // The setup token is shown once; until some token has been used, each start says how to make another.
    const owner = await ownerBeforeFirstUse(db.q)
    if (owner) {
      const where = config.databaseUrl ? ' (on the same database as this server)' : config.db === './data/taskd.db' ? '' : ` --db ${config.db}`
      print(`No token has been used yet. The setup token was shown on the first start; to make another:`)
      print(`  taskd token create --user ${owner} --name cli --permission full${where}`)
    }
  }
  print(`taskd listening on ${listening}`)
  let closing: Promise<void> | undefined
  const close = () =>
    (closing ??= (async () => {
      // Stop claiming and let attempts in flight finish while the HTTP server drains; unfinished rows keep their lease.
      // Requests in flight get the grace period to finish; after it, connections still open (keep-alive clients) are cut.
      const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS)
      deps.claimWaiters.close() // claim long polls answer 204 now
      deps.feedWaiters.close() // change feed requests waiting answer what they have now
      await Promise.all([
        scheduler.stop(SHUTDOWN_GRACE_MS),
        runner.stop(SHUTDOWN_GRACE_MS),
        dispatcher.stop(SHUTDOWN_GRACE_MS),
        housekeeping.stop(),
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeIdleConnections()
        }),
      ])
      clearTimeout(cut)
      // Handlers whose client has gone are no longer tied to a connection: the database stays open until they end.
      await api.idle(SHUTDOWN_GRACE_MS)
      await closeDeliveryAgents()
      await db.close()
      removePidFile?.()
    })())
  return { server, deps, scheduler, runner, dispatcher, port, setupToken: setup?.token, close }
}
