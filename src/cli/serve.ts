// taskd serve: start the server; on an empty database, create the owner and print a one-time setup token.
import type { Command } from 'commander'
import { loadConfig } from '../config.js'
import { startServer } from '../server.js'
import { dbOption, describeError } from './open.js'

export function serveCommand(program: Command): void {
  dbOption(
    program
      .command('serve')
      .description('start the server (first run: creates the owner and prints a setup token)')
      .option('--port <port>', 'port (env TASKD_PORT, default 8080)')
      .option('--host <host>', 'address (env TASKD_HOST, default 127.0.0.1)'),
  ).action(async (o: { port?: string; host?: string; db?: string; config?: string }) => {
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
  })
}
