// What every command that uses the database does first: the config from flags and environment, and the database,
// created and migrated if new; and the API's own checks of a command's input.
import type { z } from 'zod'
import { invalidBody, WITH_INPUT, zodDetails } from '../errors.js'
import { loadConfig } from '../config.js'
import { openDatabase } from '../db/open.js'
import { ensureWorkspace } from '../resources/users/setup.js'
import type { DbFlags } from './options.js'

export async function openForCli(flags: DbFlags) {
  const config = loadConfig({ db: flags.db, config: flags.config })
  // A command runs a few statements and exits: no read workers.
  const db = await openDatabase({ ...config, readWorkers: 0, dbPoolSize: 2 })
  await db.tx(({ q }) => ensureWorkspace(q, Date.now()))
  return { config, db }
}

/** The API's own body schema, so a command refuses what the API refuses, for the same reasons. */
export function checked<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input, WITH_INPUT)
  if (!parsed.success) throw invalidBody(zodDetails(parsed.error))
  return parsed.data
}
