// How SQLite plans taskd's statements: once per statement, not again on every run, from the SQL alone; so a condition a
// partial index needs must be in the SQL (src/db/sql.ts `literal`), and the background workers' queries use those indexes.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type Database from 'better-sqlite3'
import { loadConfig } from '../../src/config.js'
import { openSqlite, type SqliteDb } from '../../src/db/sqlite.js'
import { systemClock } from '../../src/clock.js'
import { createDeps } from '../../src/server.js'
import { createBoard } from '../../src/resources/boards/service.js'
import { createCard } from '../../src/resources/cards/service.js'
import { ensureWorkspace, insertNewUser } from '../../src/resources/users/setup.js'
import { createWebhook } from '../../src/resources/webhooks/service.js'
import { anyDueRow, claimDueRows, nextDueAfter, outboxBacklog, purgeFinishedRows } from '../../src/delivery/store.js'
import { anyDueKickoff, claimDueKickoffs, nextKickoffDue } from '../../src/resources/agent-kickoffs/store.js'
import { anyDueRun, claimRuns } from '../../src/resources/automations/store.js'
import { quietRuns } from '../../src/resources/agent-runs/store.js'
import { clearDefault, defaultWorkflowOf } from '../../src/resources/agent-workflows/store.js'
import { perfRun } from '../helpers/perf.js'

/** Runs fn and returns every statement (SQL and first arguments) it ran on the write connection. */
async function statementsOf(db: SqliteDb, fn: () => Promise<unknown>): Promise<{ sql: string; params: unknown[] }[]> {
  const seen = new Map<string, unknown[]>()
  // The statements are prepared and cached already: their calls are what is watched, on better-sqlite3's Statement.
  const proto = Object.getPrototypeOf(db.raw.prepare('SELECT 1')) as Record<'all' | 'run' | 'get' | 'iterate', (...a: unknown[]) => unknown>
  const originals = { all: proto.all, run: proto.run, get: proto.get, iterate: proto.iterate }
  for (const m of Object.keys(originals) as (keyof typeof originals)[]) {
    proto[m] = function (this: Database.Statement, ...params: unknown[]) {
      if (!seen.has(this.source)) seen.set(this.source, params)
      return originals[m].apply(this, params)
    }
  }
  try {
    await fn()
  } finally {
    Object.assign(proto, originals)
  }
  return [...seen].map(([sql, params]) => ({ sql, params }))
}

/** The fastest of a few rounds of `n` runs of each, in ms; the rounds alternate, so a busy moment of the machine slows both. */
function fastest(a: () => void, b: () => void, n = 400, rounds = 7): [number, number] {
  const best = [Infinity, Infinity]
  for (let r = 0; r < rounds; r++) {
    for (const [i, run] of [a, b].entries()) {
      const t0 = performance.now()
      for (let k = 0; k < n; k++) run()
      best[i] = Math.min(best[i], performance.now() - t0)
    }
  }
  return best as [number, number]
}

async function workspace() {
  const db = openSqlite({ file: ':memory:', readWorkers: 0 })
  const config = loadConfig({ db: ':memory:', logLevel: 'error', allowPrivateTargets: 'true' }, {})
  const deps = createDeps(db, config, systemClock)
  const owner = await db.tx(async ({ q }) => {
    await ensureWorkspace(q, Date.now())
    return insertNewUser(q, Date.now(), { email: 'plans@localhost', name: 'Plans', role: 'owner' })
  })
  const actor = { user: owner, tokenId: 'test', permission: 'write' as const }
  const { board } = await createBoard(deps, actor, { name: 'Plans' })
  return { db, deps, actor, board }
}

test("a card create's reads are planned once: running one with new arguments costs what running it bound once does", async () => {
  const { db, deps, actor, board } = await workspace()
  try {
    // Inactive, and no scheduler runs: nothing is ever sent.
    await createWebhook(deps, actor, { name: 'plans', url: 'http://127.0.0.1:9/hook', events: ['card.created'], boards: [], active: false })
    await createCard(deps, actor, { board: board.id, title: 'warm up' })
    const statements = await statementsOf(db, () => createCard(deps, actor, { board: board.id, title: 'measured' }))
    const reads = statements.filter((s) => db.raw.prepare(s.sql).reader && !/^\s*(update|insert|delete)/i.test(s.sql))
    // The board with the caller's role (a join), the board's first list (an ORDER BY), the last position (a MAX),
    // the subscriptions for the event (a join), the board's event automations.
    assert.ok(reads.length >= 5, reads.map((s) => s.sql).join('\n'))
    for (const { sql, params } of reads) {
      // Every parameter is written +? (a bare ? would let the planner look at its value).
      assert.doesNotMatch(sql, /(?<!\+)\?/, sql)
      // better-sqlite3 binds a call's arguments and clears them after it: SQLite throws away a plan that looked at
      // an argument and plans again (some 15 times the cost of these reads). Bound once, the statement keeps its plan.
      // Timed in npm run test:perf only.
      if (perfRun) {
        const rebound = db.raw.prepare(sql)
        const bound = db.raw.prepare(sql).bind(...params)
        const [perCall, once] = fastest(
          () => rebound.all(...params),
          () => bound.all(),
        )
        assert.ok(perCall < 5 * once, `${sql}\nwith new arguments ${perCall.toFixed(2)} ms, bound once ${once.toFixed(2)} ms (400 runs)`)
      }
    }
  } finally {
    await db.close()
  }
})

test('the background workers find their due rows through the partial indexes made for them', async () => {
  const { db } = await workspace()
  try {
    const now = Date.now()
    const iso = new Date(now).toISOString()
    const expected: [() => Promise<unknown>, string, string][] = [
      [() => anyDueRow(db.q, now), 'outbox', 'outbox_due'],
      [() => claimDueRows(db.q, now, now + 1000, 10), 'outbox', 'outbox_due'],
      [() => nextDueAfter(db.q, now), 'outbox', 'outbox_due'],
      [() => outboxBacklog(db.q), 'outbox', 'outbox_due'],
      [() => purgeFinishedRows(db.q, iso), 'outbox', 'outbox_finished'],
      [() => anyDueKickoff(db.q, now), 'agent_kickoffs', 'agent_kickoffs_due'],
      [() => claimDueKickoffs(db.q, now, now + 1000, 10), 'agent_kickoffs', 'agent_kickoffs_due'],
      [() => nextKickoffDue(db.q, now), 'agent_kickoffs', 'agent_kickoffs_due'],
      [() => anyDueRun(db.q, now), 'automation_runs', 'automation_runs_due'],
      [() => claimRuns(db.q, now, now + 1000, 10), 'automation_runs', 'automation_runs_due'],
      [() => quietRuns(db.q, iso, 10), 'agent_runs', 'agent_runs_running'],
      [() => defaultWorkflowOf(db.q, 'b1'), 'agent_workflows', 'agent_workflows_one_default'],
      [() => clearDefault(db.q, 'b1'), 'agent_workflows', 'agent_workflows_one_default'],
    ]
    for (const [run, table, index] of expected) {
      const statements = (await statementsOf(db, run)).filter((s) => new RegExp(`(from|update) "${table}"`, 'i').test(s.sql))
      assert.ok(statements.length > 0, `${run} ran a statement on ${table}`)
      for (const { sql, params } of statements) {
        // The plan no longer depends on the arguments (nulls plan as the real values do).
        const plan = db.raw
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...params.map(() => null))
          .map((r) => (r as { detail: string }).detail)
        const own = plan.filter((d) => new RegExp(`^(SEARCH|SCAN) ${table}\\b`).test(d))
        const byIndex = (d: string) => new RegExp(`INDEX ${index}\\b`).test(d)
        // Every look at the table goes through the index, but a lookup by primary key (an UPDATE of the rows found).
        assert.ok(own.some(byIndex) && own.every((d) => byIndex(d) || d.includes('sqlite_autoindex')), `${sql}\n${plan.join('\n')}`)
      }
    }
  } finally {
    await db.close()
  }
})
