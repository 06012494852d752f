// What every command does first: the config from flags and environment, and the database, created and migrated if new.
import { InvalidArgumentError, type Command } from 'commander'
import type { z } from 'zod'
import { HttpError, unprocessable } from '../errors.js'
import { zodDetails } from '../http/route.js'
import { loadConfig } from '../config.js'
import { openDatabase } from '../db/open.js'
import { ensureWorkspace } from '../resources/users/service.js'

export const dbOption = (cmd: Command) =>
  cmd
    .option('--db <path>', 'SQLite database file or postgres:// URL (env TASKD_DB or TASKD_DATABASE_URL; default ./data/taskd.db)')
    .option('--config <file>', 'config file (env TASKD_CONFIG; default taskd.toml or taskd.json beside the database)')

/** The options dbOption adds. */
export interface DbFlags {
  db?: string
  config?: string
}

export async function openForCli(flags: DbFlags) {
  const config = loadConfig({ db: flags.db, config: flags.config })
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

/** The API's own body schema, so a command refuses what the API refuses, for the same reasons. */
export function checked<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input)
  if (!parsed.success) throw unprocessable('The request body is not valid.', zodDetails(parsed.error))
  return parsed.data
}

/** Body fields as the commands' flags name them. */
const FLAG_OF: Record<string, string> = {
  expires_at: '--expires',
  email: '--email',
  name: '--name',
  role: '--role',
  permission: '--permission',
  user: '--user',
}

/** An error as a command prints it: the message, then each reason as "--flag: reason" (the API's 422 details). */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  if (!(err instanceof HttpError) || !err.details?.length) return err.message
  const reasons = err.details.map((d) => `  ${FLAG_OF[d.path] ?? d.path}: ${d.message}`)
  return [err.message.replace('The request body is not valid.', 'Invalid arguments.'), ...reasons].join('\n')
}
