// The taskd command line: serve, user, token, backup, restore, migrate, export, import, setup, doctor, healthcheck.
// This module is the program's definition (names, flags, help) and loads only commander: each command's module (one
// file per command group) is imported when that command runs, so `taskd --version` or `taskd token create` does not
// load the server, the HTTP stack or the PostgreSQL driver.
import { Command } from 'commander'
import { PERMISSIONS, ROLES } from '../access/role-names.js'
import { VERSION } from '../version.js'
import { dbOption, describeError, oneOf } from './options.js'

const PORT_HELP = 'port (env TASKD_PORT, default 8080)'

/** The server, the one command that runs for long. */
function serveCommand(program: Command): void {
  dbOption(
    program
      .command('serve')
      .description('start the server (first run: creates the owner and prints a setup token)')
      .option('--port <port>', PORT_HELP)
      .option('--host <host>', 'address (env TASKD_HOST, default 127.0.0.1)'),
  ).action(async (o) => (await import('./serve.js')).serve(o))
}

/** For container health checks: the server on this host answers. */
function healthcheckCommand(program: Command): void {
  dbOption(
    program
      .command('healthcheck')
      .description('exit 0 when the server on this host answers GET /healthz (port and host as serve reads them)')
      .option('--port <port>', PORT_HELP),
  ).action(async (o) => (await import('./healthcheck.js')).healthcheck(o))
}

/** Users and their personal access tokens. */
function accountCommands(program: Command): void {
  const user = program.command('user').description('manage users and how people sign in')
  dbOption(
    user
      .command('create')
      .description('create a user and print its id')
      .requiredOption('--email <email>')
      .requiredOption('--name <name>')
      .option('--role <role>', 'owner, admin or member', oneOf(ROLES), 'member'),
  ).action(async (o) => (await import('./user.js')).createUser(o))
  dbOption(
    user
      .command('set-password')
      .description("set a person's password, read from stdin (never an argument); their sessions and login links end")
      .argument('<email>'),
  ).action(async (email: string, o) => (await import('./user.js')).setPassword(email, o))
  dbOption(
    user
      .command('login-link')
      .description('print a single-use sign-in link for a person ({base_url}/login/<token>; TASKD_LOGIN_LINK_MINUTES, 15 by default)')
      .argument('<email>'),
  ).action(async (email: string, o) => (await import('./user.js')).loginLink(email, o))
  const token = program.command('token').description('manage personal access tokens')
  dbOption(
    token
      .command('create')
      .description('create a token and print only its value')
      .requiredOption('--user <email>')
      .requiredOption('--name <name>')
      .option('--permission <permission>', 'read, write or full', oneOf(PERMISSIONS), 'write')
      .option('--expires <date>', 'expiry date YYYY-MM-DD (end of that day, UTC)'),
  ).action(async (o) => (await import('./token.js')).createToken(o))
  dbOption(token.command('list').description('list tokens').option('--user <email>', "only this user's tokens")).action(async (o) =>
    (await import('./token.js')).listTokens(o),
  )
  dbOption(token.command('revoke').description('revoke a token by id').argument('<id>')).action(async (id: string, o) =>
    (await import('./token.js')).revokeToken(id, o),
  )
}

/** The database file and its schema. */
function databaseCommands(program: Command): void {
  dbOption(
    program
      .command('backup')
      .description('copy the database consistently, also while the server runs; read-only: it is copied as it is, never migrated')
      .argument('<dest>'),
  ).action(async (dest: string, o) => (await import('./database.js')).backup(dest, o))
  dbOption(
    program
      .command('restore')
      .description('replace the database with a backup; refused while a server runs on it')
      .argument('<src>', 'a file taskd backup wrote (its .key file beside it is restored too)'),
  ).action(async (src: string, o) => (await import('./database.js')).restore(src, o))
  dbOption(program.command('migrate').description('bring the database schema up to date')).action(async (o) => (await import('./database.js')).migrate(o))
}

/** The whole workspace as a file, out and in. */
function workspaceCommands(program: Command): void {
  dbOption(
    program
      .command('export')
      .description('write the whole workspace (records and files) to a JSON file')
      .requiredOption('--out <file>', 'where to write it (owner-only)'),
  ).action(async (o) => (await import('./workspace.js')).exportWorkspace(o))
  dbOption(program.command('import').description('load a taskd export into an empty database').argument('<file>')).action(async (file: string, o) =>
    (await import('./workspace.js')).importWorkspace(file, o),
  )
}

/** Setting up a server and checking it. */
function setupCommands(program: Command): void {
  dbOption(
    program
      .command('setup')
      .description('write a config file (taskd.toml beside the database, or --config FILE) with the API rate limit on, and create the database')
      .option('--base-url <url>', 'the public address people and webhooks use, e.g. https://tasks.example.com')
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--port <port>', 'port', '8080')
      .option('--force', 'replace an existing config file'),
  ).action(async (o) => (await import('./setup.js')).setup(o))
  dbOption(
    program
      .command('doctor')
      .description(
        'check the database, the key file, the config file, the base URL, free disk and (optionally) webhook delivery; exit 1 if something needs fixing',
      )
      .option('--webhook-url <url>', 'send a test POST through the webhook sender'),
  ).action(async (o) => (await import('./doctor.js')).doctor(o))
}

export function buildProgram(): Command {
  const program = new Command('taskd').version(VERSION).description('Self-hosted task and project management API').showHelpAfterError()
  serveCommand(program)
  accountCommands(program)
  databaseCommands(program)
  healthcheckCommand(program)
  workspaceCommands(program)
  setupCommands(program)
  return program
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv)
  } catch (err) {
    process.stderr.write(`taskd: ${describeError(err)}\n`)
    process.exit(1)
  }
}
