// What every command does first: the config from flags and environment, and the database, created and migrated if new.
import { InvalidArgumentError, type Command } from 'commander'
import { loadConfig } from '../config.js'
import { openDatabase } from '../db/open.js'
import { ensureWorkspace } from '../resources/users/service.js'

export const dbOption = (cmd: Command) =>
  cmd.option('--db <path>', 'SQLite database file or postgres:// URL (env TASKD_DB or TASKD_DATABASE_URL; default ./data/taskd.db)')

export async function openForCli(dbFlag: string | undefined) {
  const config = loadConfig({ db: dbFlag })
  // A command runs a few statements and exits: no read workers.
  const db = await openDatabase({ ...config, readWorkers: 0, dbPoolSize: 2 })
  await db.tx(({ q }) => ensureWorkspace(q, Date.now()))
  return { config, db }
}

/** A commander option parser that accepts only these values. */
export function oneOf<T extends string>(values: readonly T[]) {
  return (v: string): T => {
    if (!values.includes(v as T)) throw new InvalidArgumentError(`must be one of ${values.join(', ')}`)
    return v as T
  }
}
