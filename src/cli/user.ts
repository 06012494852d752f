// taskd user create: add a user and print its id (the command's flags: src/cli/index.ts).
import type { Role } from '../access/roles.js'
import { insertNewUser } from '../resources/users/setup.js'
import { CreateUserBody } from '../resources/users/schema.js'
import { checkedInput } from '../errors.js'
import { openForCli } from './open.js'
import type { DbFlags } from './options.js'

export async function createUser(o: DbFlags & { email: string; name: string; role: Role }): Promise<void> {
  const input = checkedInput(CreateUserBody, { email: o.email, name: o.name, role: o.role })
  const { db } = await openForCli(o)
  const row = await db.tx(({ q }) => insertNewUser(q, Date.now(), { ...input, email: o.email }))
  await db.close()
  process.stdout.write(`${row.id}\n`)
}
