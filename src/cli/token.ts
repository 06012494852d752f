// taskd token create | list | revoke: personal access tokens from the shell (the commands' flags: src/cli/index.ts).
import type { Permission } from '../access/roles.js'
import { checkedInput, HttpError } from '../errors.js'
import { audit, commandLine } from '../resources/audit/record.js'
import { issueToken, tokenDetails } from '../resources/tokens/issue.js'
import { tokenView } from '../resources/tokens/present.js'
import { deleteToken, getToken, tokensWithOwners } from '../resources/tokens/store.js'
import { getUser as getUserById, getUserByEmail } from '../resources/users/store.js'
import { CreateTokenBody } from '../resources/tokens/schema.js'
import { cliDeps, openForCli } from './open.js'
import type { DbFlags } from './options.js'

export async function createToken(o: DbFlags & { user: string; name: string; permission: Permission; expires?: string }): Promise<void> {
  const input = checkedInput(CreateTokenBody, { name: o.name, permission: o.permission, expires_at: o.expires })
  const { db, config } = await openForCli(o)
  const u = await getUserByEmail(db.q, o.user)
  if (!u) throw new HttpError(404, 'not_found', `No user with email ${o.user}.`)
  const { value } = await db.tx(async (tx) => {
    const issued = await issueToken(tx.q, Date.now(), u.id, input)
    await audit(cliDeps(db, config), tx, commandLine(), 'token.created', issued.token, { details: tokenDetails(issued.token) })
    return issued
  })
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
  const { db, config } = await openForCli(o)
  const token = await getToken(db.q, id)
  if (!token) throw new HttpError(404, 'not_found', `No token ${id}.`)
  const holder = await getUserById(db.q, token.user_id)
  await db.tx(async (tx) => {
    await deleteToken(tx.q, id)
    const view = tokenView(token, { id: token.user_id, name: holder?.name ?? '' })
    await audit(cliDeps(db, config), tx, commandLine(), 'token.revoked', token, { details: tokenDetails(view) })
  })
  await db.close()
  process.stdout.write(`revoked ${id}\n`)
}
