// taskd user create: add a user and print its id.
import type { Command } from 'commander'
import { Role } from '../access/roles.js'
import { insertNewUser } from '../resources/users/service.js'
import { CreateUserBody } from '../resources/users/schema.js'
import { checked, dbOption, oneOf, openForCli } from './open.js'

export function userCommand(program: Command): void {
  const user = program.command('user').description('manage users')
  dbOption(
    user
      .command('create')
      .description('create a user and print its id')
      .requiredOption('--email <email>')
      .requiredOption('--name <name>')
      .option('--role <role>', 'owner, admin or member', oneOf(Role.options), 'member'),
  ).action(async (o: { email: string; name: string; role: Role; db?: string }) => {
    const input = checked(CreateUserBody, { email: o.email, name: o.name, role: o.role })
    const { db } = await openForCli(o)
    const row = await db.tx(({ q }) => insertNewUser(q, Date.now(), { ...input, email: o.email }))
    await db.close()
    process.stdout.write(`${row.id}\n`)
  })
}
