// taskd token create | list | revoke: personal access tokens from the shell (the commands' flags: src/cli/index.ts).
import type { Permission } from '../access/roles.js'
import { checkedInput, HttpError } from '../errors.js'
import { issueToken } from '../resources/tokens/issue.js'
import { deleteToken, getToken, tokensWithOwners } from '../resources/tokens/store.js'
import { getUserByEmail } from '../resources/users/store.js'
import { CreateTokenBody } from '../resources/tokens/schema.js'
import { openForCli } from './open.js'
import type { DbFlags } from './options.js'

export async function createToken(o: DbFlags & { user: string; name: string; permission: Permission; expires?: string }): Promise<void> {
  const input = checkedInput(CreateTokenBody, { name: o.name, permission: o.permission, expires_at: o.expires })
  const { db } = await openForCli(o)
  const u = await getUserByEmail(db.q, o.user)
  if (!u) throw new HttpError(404, 'not_found', `No user with email ${o.user}.`)
  const { value } = await db.tx(({ q }) => issueToken(q, Date.now(), u.id, input))
  await db.close()
  process.stdout.write(`${value}\n`)
}

export async function listTokens(o: DbFlags & { user?: string }): Promise<void> {
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
}

export async function revokeToken(id: string, o: DbFlags): Promise<void> {
  const { db } = await openForCli(o)
  if (!(await getToken(db.q, id))) throw new HttpError(404, 'not_found', `No token ${id}.`)
  await deleteToken(db.q, id)
  await db.close()
  process.stdout.write(`revoked ${id}\n`)
}
