// A read-pool process: its own read-only connection to the SQLite file (a WAL reader), answering one message at a time
// (one or a few statements, run one after the other), in the order they came.
// A process rather than a worker thread: better-sqlite3 cannot interrupt a running statement and Worker.terminate()
// does not stop native code, so a runaway read is only ever stopped by killing the process that runs it.
import Database from 'better-sqlite3'
import { sqliteBinding } from '../assets.js'
import { setUpConnection } from './connection.js'
import type { ReadStatement } from './read-pool.js'

const db = new Database(process.env.TASKD_READ_DB!, { readonly: true, fileMustExist: true, nativeBinding: sqliteBinding() })
setUpConnection(db)
db.pragma('busy_timeout = 5000')
const cache = new Map<string, Database.Statement>()

const statement = (sql: string): Database.Statement => {
  let stmt = cache.get(sql)
  // Used now, so last out: a hit goes to the end of the cache's order.
  if (stmt) cache.delete(sql)
  else {
    stmt = db.prepare(sql)
    // The least recently used out when full (statements whose text carries values, a search's
    // page size and offset, come and go; the others stay prepared).
    if (cache.size >= 500) cache.delete(cache.keys().next().value!)
  }
  cache.set(sql, stmt)
  return stmt
}

/** The statements of a message in one read transaction: a page and its total see the database at the same moment. */
const runAll = db.transaction((statements: ReadStatement[]) => statements.map((s) => statement(s.sql).all(...s.params)))

type Read = { id: number; statements: ReadStatement[] }
type Message = Read | { skip: number }

// Messages are queued and run from setImmediate, so that a `skip` read from the channel while a read ran is seen before
// the read it names starts (the pool sends a read behind a busy one's, and may take it back). A skip that comes later
// is too late: the read runs, and the pool ignores its answer.
const waiting: Read[] = []
const skipped = new Set<number>()

function runNext(): void {
  const msg = waiting.shift()
  if (!msg) return
  if (skipped.delete(msg.id)) process.send!({ id: msg.id, skipped: true })
  else
    try {
      process.send!({ id: msg.id, rows: runAll(msg.statements) })
    } catch (err) {
      process.send!({ id: msg.id, error: err instanceof Error ? err.message : String(err) })
    }
  if (waiting.length > 0) setImmediate(runNext)
}

process.on('message', (msg: Message) => {
  if ('skip' in msg) {
    if (waiting.some((w) => w.id === msg.skip)) skipped.add(msg.skip)
    return
  }
  waiting.push(msg)
  if (waiting.length === 1) setImmediate(runNext)
})
// The server went away (or closed the pool): nothing is left to answer.
process.on('disconnect', () => process.exit(0))
