// A read-pool process: its own read-only connection to the SQLite file (a WAL reader), answering one query at a time.
// A process rather than a worker thread: better-sqlite3 cannot interrupt a running statement and Worker.terminate()
// does not stop native code, so a runaway read is only ever stopped by killing the process that runs it.
import Database from 'better-sqlite3'
import { sqliteBinding } from '../assets.js'
import { setUpConnection } from './connection.js'

const db = new Database(process.env.TASKD_READ_DB!, { readonly: true, fileMustExist: true, nativeBinding: sqliteBinding() })
setUpConnection(db)
db.pragma('busy_timeout = 5000')
const cache = new Map<string, Database.Statement>()

process.on('message', (msg: { id: number; sql: string; params: unknown[] }) => {
  try {
    let stmt = cache.get(msg.sql)
    if (!stmt) {
      stmt = db.prepare(msg.sql)
      if (cache.size > 500) cache.clear()
      cache.set(msg.sql, stmt)
    }
    process.send!({ id: msg.id, rows: stmt.all(...msg.params) })
  } catch (err) {
    process.send!({ id: msg.id, error: err instanceof Error ? err.message : String(err) })
  }
})
// The server went away (or closed the pool): nothing is left to answer.
process.on('disconnect', () => process.exit(0))
