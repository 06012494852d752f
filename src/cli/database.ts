// taskd backup DEST and taskd migrate: the database file itself.
import type { Command } from 'commander'
import { SCHEMA_VERSION } from '../db/migrate.js'
import { dbOption, openForCli } from './open.js'

export function databaseCommands(program: Command): void {
  dbOption(program.command('backup').description('copy the database consistently, also while the server runs').argument('<dest>')).action(
    async (dest: string, o: { db?: string }) => {
      const { sql } = openForCli(o.db)
      await sql.raw.backup(dest)
      process.stdout.write(`backup written to ${dest}\n`)
    },
  )
  dbOption(program.command('migrate').description('bring the database schema up to date')).action((o: { db?: string }) => {
    openForCli(o.db)
    process.stdout.write(`schema at version ${SCHEMA_VERSION}\n`)
  })
}
