// taskd user create: add a user and print its id (the command's flags: src/cli/index.ts).
import type { Role } from '../access/roles.js'
import { insertNewUser } from '../resources/users/setup.js'
import { CreateUserBody } from '../resources/users/schema.js'
import { checkedInput } from '../errors.js'
import { audit, commandLine } from '../resources/audit/record.js'
import { cliDeps, openForCli } from './open.js'
import type { DbFlags } from './options.js'

export async function createUser(o: DbFlags & { email: string; name: string; role: Role }): Promise<void> {
  const input = checkedInput(CreateUserBody, { email: o.email, name: o.name, role: o.role })
  const { db, config } = await openForCli(o)
  const row = await db.tx(async (tx) => {
    const user = await insertNewUser(tx.q, Date.now(), { ...input, email: o.email })
    await audit(cliDeps(db, config), tx, commandLine(), 'user.created', user, { details: { role: user.role } })
    return user
  })
  await db.close()
  process.stdout.write(`${row.id}\n`)
}
