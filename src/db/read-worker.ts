// A read-pool worker: its own read-only connection to the SQLite file (a WAL reader), answering one query at a time.
import Database from 'better-sqlite3'
import { parentPort, workerData } from 'node:worker_threads'

const db = new Database((workerData as { file: string }).file, { readonly: true, fileMustExist: true })
db.pragma('busy_timeout = 5000')
const cache = new Map<string, Database.Statement>()

parentPort!.on('message', (msg: { id: number; sql: string; params: unknown[] }) => {
  try {
    let stmt = cache.get(msg.sql)
    if (!stmt) {
      stmt = db.prepare(msg.sql)
      if (cache.size > 500) cache.clear()
      cache.set(msg.sql, stmt)
    }
    parentPort!.postMessage({ id: msg.id, rows: stmt.all(...msg.params) })
  } catch (err) {
    parentPort!.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) })
  }
})
