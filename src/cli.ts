// The taskd command line: serve, user, token, backup, migrate (API-DECISIONS §3).
import { Command, InvalidArgumentError } from 'commander'
import { loadConfig } from './config.js'
import { openDatabase } from './db/open.js'
import { SCHEMA_VERSION } from './db/migrate.js'
import { issueToken } from './domain/tokens.js'
import { ensureWorkspace, insertNewUser } from './domain/users.js'
import { HttpError } from './http/errors.js'
import { VERSION } from './http/openapi.js'
import { startServer } from './server.js'
import { qb } from './db/sql.js'
import { getUserByEmail } from './store/users.js'
import { deleteToken, getToken } from './store/tokens.js'

const dbOption = (cmd: Command) => cmd.option('--db <path>', 'database file (env TASKD_DB, default ./data/taskd.db)')

function open(dbFlag: string | undefined) {
  const config = loadConfig({ db: dbFlag })
  const sql = openDatabase(config.db)
  sql.tx(() => ensureWorkspace(sql, Date.now()))
  return { config, sql }
}

function oneOf(values: string[]) {
  return (v: string) => {
    if (!values.includes(v)) throw new InvalidArgumentError(`must be one of ${values.join(', ')}`)
    return v
  }
}

export function buildProgram(): Command {
  const program = new Command('taskd').version(VERSION).description('Self-hosted task and project management API').showHelpAfterError()

  dbOption(program.command('serve').description('start the server (first run: creates the owner and prints a setup token)')
    .option('--port <port>', 'port (env TASKD_PORT, default 8080)').option('--host <host>', 'address (env TASKD_HOST, default 127.0.0.1)'))
    .action(async (o: { port?: string; host?: string; db?: string }) => {
      const config = loadConfig({ port: o.port, host: o.host, db: o.db })
      const running = await startServer(config)
      const stop = () => { void running.close().then(() => process.exit(0)) }
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })

  const user = program.command('user').description('manage users')
  dbOption(user.command('create').description('create a user and print its id')
    .requiredOption('--email <email>').requiredOption('--name <name>')
    .option('--role <role>', 'owner, admin or member', oneOf(['owner', 'admin', 'member']), 'member'))
    .action((o: { email: string; name: string; role: 'owner' | 'admin' | 'member'; db?: string }) => {
      const { sql } = open(o.db)
      const row = sql.tx(() => insertNewUser(sql, Date.now(), { email: o.email, name: o.name, role: o.role }))
      process.stdout.write(`${row.id}\n`)
    })

  const token = program.command('token').description('manage personal access tokens')
  dbOption(token.command('create').description('create a token and print only its value')
    .requiredOption('--user <email>').requiredOption('--name <name>')
    .option('--permission <permission>', 'read, write or full', oneOf(['read', 'write', 'full']), 'write')
    .option('--expires <date>', 'expiry date YYYY-MM-DD (end of that day, UTC)'))
    .action((o: { user: string; name: string; permission: 'read' | 'write' | 'full'; expires?: string; db?: string }) => {
      const { sql } = open(o.db)
      const u = getUserByEmail(sql, o.user)
      if (!u) throw new HttpError(404, 'not_found', `No user with email ${o.user}.`)
      const { value } = sql.tx(() => issueToken(sql, Date.now(), u.id, { name: o.name, permission: o.permission, expires_at: o.expires }))
      process.stdout.write(`${value}\n`)
    })
  dbOption(token.command('list').description('list tokens').option('--user <email>', 'only this user\'s tokens'))
    .action((o: { user?: string; db?: string }) => {
      const { sql } = open(o.db)
      let q = qb.selectFrom('tokens').innerJoin('users', 'users.id', 'tokens.user_id')
        .select(['tokens.id', 'tokens.name', 'tokens.permission', 'tokens.prefix', 'tokens.expires_at', 'tokens.last_used_at', 'users.email']).orderBy('tokens.created_at')
      if (o.user) q = q.where('users.email', '=', o.user)
      const rows = sql.all(q)
      const table = [['ID', 'NAME', 'PERMISSION', 'PREFIX', 'USER', 'EXPIRES', 'LAST USED'], ...rows.map((r) => [r.id, r.name, r.permission, r.prefix, r.email, r.expires_at ?? '-', r.last_used_at ?? '-'])]
      const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)))
      for (const row of table) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}\n`)
    })
  dbOption(token.command('revoke').description('revoke a token by id').argument('<id>'))
    .action((id: string, o: { db?: string }) => {
      const { sql } = open(o.db)
      if (!getToken(sql, id)) throw new HttpError(404, 'not_found', `No token ${id}.`)
      deleteToken(sql, id)
      process.stdout.write(`revoked ${id}\n`)
    })

  dbOption(program.command('backup').description('copy the database consistently, also while the server runs').argument('<dest>'))
    .action(async (dest: string, o: { db?: string }) => {
      const { sql } = open(o.db)
      await sql.raw.backup(dest)
      process.stdout.write(`backup written to ${dest}\n`)
    })

  dbOption(program.command('migrate').description('bring the database schema up to date'))
    .action((o: { db?: string }) => {
      open(o.db)
      process.stdout.write(`schema at version ${SCHEMA_VERSION}\n`)
    })
  return program
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv)
  } catch (err) {
    process.stderr.write(`taskd: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  }
}
