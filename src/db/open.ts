// Opens the database the configuration names: PostgreSQL when TASKD_DATABASE_URL is set, else the SQLite file.
import type { Db } from './database.js'
import { openSqlite } from './sqlite.js'

export interface OpenOptions {
  /** The SQLite file (or ':memory:'), used when databaseUrl is unset. */
  db: string
  /** postgres://... */
  databaseUrl?: string
  /** A direct postgres:// URL for the LISTEN connection when databaseUrl goes through a pooler. */
  databaseDirectUrl?: string
  /** A read past this many milliseconds is stopped and answers 503 query_timeout. */
  queryTimeoutMs?: number
  /** SQLite: read processes; 0 runs reads on the write connection. */
  readWorkers?: number
  /** PostgreSQL: connections this process keeps at most. */
  dbPoolSize?: number
  /** PostgreSQL: prepared statements per connection; `auto` (the default) turns them off when databaseDirectUrl is another address. */
  dbPrepare?: 'auto' | 'on' | 'off'
  /** SQLite: gather the planner's statistics at open (default); a command that writes a row and exits skips it. */
  optimize?: boolean
  log?: (msg: string, err?: unknown) => void
}

export async function openDatabase(opts: OpenOptions): Promise<Db> {
  const queryTimeoutMs = opts.queryTimeoutMs ?? 5000
  if (opts.databaseUrl) {
    // Loaded only here: a SQLite server never loads the PostgreSQL driver (a faster start).
    const { openPostgres } = await import('./postgres.js')
    const prepare = opts.dbPrepare === 'on' ? true : opts.dbPrepare === 'off' ? false : undefined
    return openPostgres({ url: opts.databaseUrl, queryTimeoutMs, poolSize: opts.dbPoolSize ?? 10, directUrl: opts.databaseDirectUrl, prepare, log: opts.log })
  }
  return openSqlite({ file: opts.db, queryTimeoutMs, readWorkers: opts.readWorkers, optimize: opts.optimize })
}
