// GET /healthz (the process answers) and GET /readyz (the database answers at the schema version this taskd needs, and
// the outbox scheduler, the automation runner and the kickoff dispatcher are running and have claimed recently). No token.
import express from 'express'
import { storedSchemaVersion } from '../db/dialect.js'
import { SCHEMA_VERSION } from '../db/migrate.js'
import type { Deps } from '../deps.js'
import type { Pump } from '../jobs/pump.js'

/**
 * The wake-ups of the background workers startServer runs, without those this process does not run (TASKD_WORKERS:
 * checked as `off`); an app without any (tests) is never ready.
 */
export type Workers = Readonly<Partial<Record<'scheduler' | 'runner' | 'dispatcher', Pump>>>

/** Workers poll every TASKD_POLL_MS (a second by default): one whose last round ended longer ago than this is stuck. */
const staleMs = (pollMs: number) => Math.max(30_000, 3 * pollMs)

export function healthRouter(deps: Deps, workers: Workers | undefined, log: (msg: string, err?: unknown) => void): express.Router {
  const router = express.Router()
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })
  router.get('/readyz', async (_req, res) => {
    const checks: Record<string, string> = {}
    try {
      const version = await storedSchemaVersion(deps.db.q)
      checks.database = 'ok'
      checks.migrations = version === SCHEMA_VERSION ? 'ok' : `the database is at schema version ${version}; this taskd needs ${SCHEMA_VERSION}`
    } catch (err) {
      log('readiness: the database did not answer', err)
      checks.database = 'the database did not answer'
      checks.migrations = 'unknown'
    }
    const stale = staleMs(deps.config.pollMs)
    for (const name of ['scheduler', 'runner', 'dispatcher'] as const) {
      const pump = workers?.[name]
      if (workers && !pump) checks[name] = 'off'
      else checks[name] = !pump?.started ? 'not running' : pump.alive(stale) ? 'ok' : `no round in the last ${stale / 1000} s`
    }
    const failing = Object.entries(checks).filter(([, v]) => v !== 'ok' && v !== 'off')
    if (failing.length === 0) res.json({ status: 'ready', checks })
    else {
      const message = `Not ready: ${failing.map(([k, v]) => `${k}: ${v}`).join('; ')}.`
      res.status(503).json({ status: 'not_ready', checks, error: { code: 'not_ready', message } })
    }
  })
  return router
}
