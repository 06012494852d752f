// Starts taskd: open the database, first-run setup, listen, and shut down gracefully.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApp } from './app.js'
import { systemClock, type Clock } from './clock.js'
import type { Config } from './config.js'
import { openDatabase } from './db/open.js'
import type { Sql } from './db/sql.js'
import type { Deps } from './domain/context.js'
import { issueToken } from './domain/tokens.js'
import { ensureWorkspace, insertNewUser, isWorkspaceEmpty } from './domain/users.js'

export interface Running { server: http.Server; deps: Deps; port: number; setupToken?: string; close(): Promise<void> }

/** On an empty database: the workspace, an owner, and a one-time Full Access token. */
export function firstRunSetup(sql: Sql, now: number): { email: string; token: string } | undefined {
  return sql.tx(() => {
    ensureWorkspace(sql, now)
    if (!isWorkspaceEmpty(sql)) return undefined
    const owner = insertNewUser(sql, now, { email: 'owner@localhost', name: 'Owner', role: 'owner' })
    const { value } = issueToken(sql, now, owner.id, { name: 'setup', permission: 'full' })
    return { email: owner.email, token: value }
  })
}

export async function startServer(config: Config, opts: { clock?: Clock; print?: (line: string) => void } = {}): Promise<Running> {
  const clock = opts.clock ?? systemClock
  const print = opts.print ?? ((line: string) => process.stdout.write(`${line}\n`))
  const sql = openDatabase(config.db)
  const setup = firstRunSetup(sql, clock.now())
  const deps: Deps = { sql, config, clock, onOutboxWrite: () => {} }
  const { app } = createApp(deps)
  const server = http.createServer(app)
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  if (setup) {
    print(`Created the workspace and its owner (${setup.email}).`)
    print(`Setup token (Full Access, shown only once): ${setup.token}`)
  }
  print(`taskd listening on http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`)
  let closing: Promise<void> | undefined
  const close = () => (closing ??= (async () => {
    await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeIdleConnections() })
    sql.raw.close()
  })())
  return { server, deps, port, setupToken: setup?.token, close }
}
