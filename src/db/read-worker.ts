// A read-pool process: its own read-only connection to the SQLite file (a WAL reader), answering one message at a time
// (one or a few statements, run one after the other).
// A process rather than a worker thread: better-sqlite3 cannot interrupt a running statement and Worker.terminate()
// does not stop native code, so a runaway read is only ever stopped by killing the process that runs it.
import Database from 'better-sqlite3'
import { sqliteBinding } from '../assets.js'
import { setUpConnection } from './connection.js'

const db = new Database(process.env.TASKD_READ_DB!, { readonly: true, fileMustExist: true, nativeBinding: sqliteBinding() })
setUpConnection(db)
db.pragma('busy_timeout = 5000')
const cache = new Map<string, Database.Statement>()

const statement = (sql: string): Database.Statement => {
  let stmt = cache.get(sql)
  if (!stmt) {
    stmt = db.prepare(sql)
    if (cache.size > 500) cache.clear()
    cache.set(sql, stmt)
  }
  return stmt
}

/** The statements of a message in one read transaction: a page and its total see the database at the same moment. */
const runAll = db.transaction((statements: { sql: string; params: unknown[] }[]) => statements.map((s) => statement(s.sql).all(...s.params)))

process.on('message', (msg: { id: number; statements: { sql: string; params: unknown[] }[] }) => {
  try {
    process.send!({ id: msg.id, rows: runAll(msg.statements) })
  } catch (err) {
    process.send!({ id: msg.id, error: err instanceof Error ? err.message : String(err) })
  }
})
// The server went away (or closed the pool): nothing is left to answer.
process.on('disconnect', () => process.exit(0))
