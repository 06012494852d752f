// What every command that uses the database does first: the config from flags and environment, and the database,
// created and migrated if new. A command checks its input with the API's own schema (checkedInput in src/errors.ts).
import { systemClock } from '../clock.js'
import { type Config, loadConfig } from '../config.js'
import type { SecretBox } from '../crypto.js'
import type { Db } from '../db/database.js'
import { openDatabase } from '../db/open.js'
import type { Deps } from '../deps.js'
import { Waiters } from '../waiters.js'
import { ensureWorkspace } from '../resources/users/setup.js'
import type { DbFlags } from './options.js'

export async function openForCli(flags: DbFlags) {
  const config = loadConfig({ db: flags.db, config: flags.config })
  // A command runs a few statements and exits: no read workers.
  const db = await openDatabase({ ...config, readWorkers: 0, dbPoolSize: 2 })
  await db.tx(({ q }) => ensureWorkspace(q, Date.now()))
  return { config, db }
}

/**
 * What a command's audit entry (and its `audit.entry` event) is written with: the database and the clock. No worker
 * runs in a command: the server's outbox sends the event's deliveries (on PostgreSQL woken by the commit's NOTIFY, on
 * SQLite by its poll). A command opens no stored secret.
 */
export function cliDeps(db: Db, config: Config): Deps {
  return {
    db,
    config,
    clock: systemClock,
    onOutboxWrite: () => {},
    onRunsQueued: () => {},
    onKickoffsQueued: () => {},
    onWebhooksPaused: async () => {},
    claimWaiters: new Waiters(),
    feedWaiters: new Waiters(),
    onEvents: async () => {},
    get secrets(): SecretBox {
      throw new Error('a taskd command opens no stored secret')
    },
  }
}
