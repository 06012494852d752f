// What every command that uses the database does first: the config from flags and environment, and the database,
// created and migrated if new. A command checks its input with the API's own schema (checkedInput in src/errors.ts).
import { loadConfig } from '../config.js'
import { openDatabase } from '../db/open.js'
import { ensureWorkspace } from '../resources/users/setup.js'
import type { DbFlags } from './options.js'

export async function openForCli(flags: DbFlags) {
  const config = loadConfig({ db: flags.db, config: flags.config })
  // A command runs a few statements and exits: no read workers, no planner statistics gathered (the server does that).
  const db = await openDatabase({ ...config, readWorkers: 0, dbPoolSize: 2, optimize: false })
  await db.tx(({ q }) => ensureWorkspace(q, Date.now()))
  return { config, db }
}
