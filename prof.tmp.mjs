import { loadConfig } from './dist/src/config.js'
import { startServer } from './dist/src/server.js'
import { openDatabase } from './dist/src/db/open.js'
const db = '/tmp/p.db'
const sql = openDatabase(db)
const tok = sql.raw.prepare("select 1").get()
sql.raw.close()
const running = await startServer(loadConfig({ db, port: 18181, host: '127.0.0.1', logLevel: 'error' }, {}), { print: () => {} })
setTimeout(async () => { await running.close(); process.exit(0) }, 14000)
