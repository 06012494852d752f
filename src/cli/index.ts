// The taskd command line (API-DECISIONS §3): serve, user, token, backup, restore, migrate, export, import, setup, doctor; one file per command group.
import { Command } from 'commander'
import { VERSION } from '../version.js'
import { databaseCommands } from './database.js'
import { healthcheckCommand } from './healthcheck.js'
import { describeError } from './open.js'
import { serveCommand } from './serve.js'
import { tokenCommand } from './token.js'
import { userCommand } from './user.js'
import { workspaceCommands } from './workspace.js'
import { setupCommand } from './setup.js'
import { doctorCommand } from './doctor.js'

export function buildProgram(): Command {
  const program = new Command('taskd').version(VERSION).description('Self-hosted task and project management API').showHelpAfterError()
  serveCommand(program)
  userCommand(program)
  tokenCommand(program)
  databaseCommands(program)
  healthcheckCommand(program)
  workspaceCommands(program)
  setupCommand(program)
  doctorCommand(program)
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
