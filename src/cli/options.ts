// What the program's definition needs from the commands (flags, option parsers) and how a command prints an error:
// cheap to load (commander and errors.ts only), since every start loads it, `taskd --version` too.
import fs from 'node:fs'
import { InvalidArgumentError, type Command } from 'commander'
import type { HttpError } from '../errors.js'

export const dbOption = (cmd: Command) =>
  cmd
    .option('--db <path>', 'SQLite database file or postgres:// URL (env TASKD_DB or TASKD_DATABASE_URL; default ./data/taskd.db)')
    .option('--config <file>', 'config file (env TASKD_CONFIG; default taskd.toml or taskd.json beside the database)')

/** The options dbOption adds. */
export interface DbFlags {
  db?: string
  config?: string
}

/** A commander option parser that accepts only these values. */
export function oneOf<T extends string>(values: readonly T[]) {
  return (v: string): T => {
    if (!values.includes(v as T)) throw new InvalidArgumentError(`must be one of ${values.join(', ')}`)
    return v as T
  }
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

/** One reason as a command prints it, under the flag's name: `--expires must be a date YYYY-MM-DD or ...`. */
function reasonOf(d: { path: string; message: string }): string {
  const flag = FLAG_OF[d.path] ?? d.path
  return d.message.startsWith(`${d.path} `) ? `  ${flag}${d.message.slice(d.path.length)}` : `  ${flag}: ${d.message}`
}

/** An error as a command prints it: the message, then each reason under its flag (the API's 422 details). */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  // Read by shape, not instanceof: the server's commands are bundled apart (scripts/bundle.mjs) with their own HttpError.
  const { details } = err as Partial<HttpError>
  if (!details?.length) return err.message
  const head = err.message.startsWith('The request body is not valid') ? 'Invalid arguments:' : err.message
  return [head, ...details.map(reasonOf)].join('\n')
}

/**
 * A short command's output, written to stdout at once: process.stdout would first load Node's stream machinery (and for
 * a pipe its sockets, some 5 ms) to print one line. A non-blocking stdout that is full gets the rest through it.
 */
export function print(text: string): void {
  const bytes = Buffer.from(text)
  let done = 0
  try {
    while (done < bytes.length) done += fs.writeSync(1, bytes, done)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err
    process.stdout.write(bytes.subarray(done))
  }
}
