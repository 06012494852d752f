// taskd backup DEST and taskd migrate: the database file itself.
import type { Command } from 'commander'
import { SCHEMA_VERSION } from '../db/migrate.js'
import { dbOption, openForCli } from './open.js'

export function databaseCommands(program: Command): void {
  dbOption(program.command('backup').description('copy the database consistently, also while the server runs').argument('<dest>')).action(
    async (dest: string, o: { db?: string }) => {
      const { db } = await openForCli(o.db)
      await db.backup(dest)
      await db.close()
      process.stdout.write(`backup written to ${dest}\n`)
    },
  )
  dbOption(program.command('migrate').description('bring the database schema up to date')).action(async (o: { db?: string }) => {
    await (await openForCli(o.db)).db.close()
    process.stdout.write(`schema at version ${SCHEMA_VERSION}\n`)
  })
}
