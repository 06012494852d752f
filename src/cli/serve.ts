// taskd serve: start the server; on an empty database, create the owner and print a one-time setup token.
import { loadConfig } from '../config.js'
import { startServer } from '../server.js'
import { describeError, type DbFlags } from './options.js'

export async function serve(o: DbFlags & { port?: string; host?: string }): Promise<void> {
  const running = await startServer(loadConfig({ port: o.port, host: o.host, db: o.db, config: o.config }))
  const stop = () => {
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`taskd: shutdown did not finish cleanly: ${describeError(err)}\n`)
        process.exit(1)
      },
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
