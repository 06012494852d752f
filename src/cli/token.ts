// taskd token create | list | revoke: personal access tokens from the shell.
import type { Command } from 'commander'
import { Permission } from '../access/roles.js'
import { HttpError } from '../errors.js'
import { issueToken } from '../resources/tokens/service.js'
import { deleteToken, getToken, tokensWithOwners } from '../resources/tokens/store.js'
import { getUserByEmail } from '../resources/users/store.js'
import { CreateTokenBody } from '../resources/tokens/schema.js'
import { checked, dbOption, oneOf, openForCli } from './open.js'

export function tokenCommand(program: Command): void {
  const token = program.command('token').description('manage personal access tokens')
  dbOption(
    token
      .command('create')
      .description('create a token and print only its value')
      .requiredOption('--user <email>')
      .requiredOption('--name <name>')
      .option('--permission <permission>', 'read, write or full', oneOf(Permission.options), 'write')
      .option('--expires <date>', 'expiry date YYYY-MM-DD (end of that day, UTC)'),
  ).action(async (o: { user: string; name: string; permission: Permission; expires?: string; db?: string }) => {
    const input = checked(CreateTokenBody, { name: o.name, permission: o.permission, expires_at: o.expires })
    const { db } = await openForCli(o)
    const u = await getUserByEmail(db.q, o.user)
    if (!u) throw new HttpError(404, 'not_found', `No user with email ${o.user}.`)
    const { value } = await db.tx(({ q }) => issueToken(q, Date.now(), u.id, input))
    await db.close()
    process.stdout.write(`${value}\n`)
  })
  dbOption(token.command('list').description('list tokens').option('--user <email>', "only this user's tokens")).action(
    async (o: { user?: string; db?: string }) => {
      const { db } = await openForCli(o)
      const rows = await tokensWithOwners(db.q, o.user)
      await db.close()
      const table = [
        ['ID', 'NAME', 'PERMISSION', 'PREFIX', 'USER', 'EXPIRES', 'LAST USED'],
        ...rows.map((r) => [r.id, r.name, r.permission, r.prefix, r.email, r.expires_at ?? '-', r.last_used_at ?? '-']),
      ]
      const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)))
      for (const row of table)
        process.stdout.write(
          `${row
            .map((c, i) => c.padEnd(widths[i]))
            .join('  ')
            .trimEnd()}\n`,
        )
    },
  )
  dbOption(token.command('revoke').description('revoke a token by id').argument('<id>')).action(async (id: string, o: { db?: string }) => {
    const { db } = await openForCli(o)
    if (!(await getToken(db.q, id))) throw new HttpError(404, 'not_found', `No token ${id}.`)
    await deleteToken(db.q, id)
    await db.close()
    process.stdout.write(`revoked ${id}\n`)
  })
}
