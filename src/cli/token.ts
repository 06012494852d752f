// taskd token create | list | revoke: personal access tokens from the shell (the commands' flags: src/cli/index.ts).
import type { Permission, Role } from '../access/roles.js'
import { isoAt } from '../clock.js'
import { loadConfig } from '../config.js'
import { openWriteConnection } from '../db/sqlite-file.js'
import { checkedInput, HttpError } from '../errors.js'
import { CreateTokenBody, type CreateTokenInput } from '../resources/tokens/body.js'
import { newTokenRow } from '../resources/tokens/token-row.js'
import { print, type DbFlags } from './options.js'

const noSuchUser = (email: string) => new HttpError(404, 'not_found', `No user with email ${email}.`)

export async function createToken(o: DbFlags & { user: string; name: string; permission: Permission; expires?: string }): Promise<void> {
  const input = checkedInput(CreateTokenBody, { name: o.name, permission: o.permission, expires_at: o.expires })
  const config = loadConfig({ db: o.db, config: o.config })
  print(`${config.databaseUrl ? await createThroughDb(o, input) : createOnFile(config.db, o.user, input)}\n`)
}

/** On PostgreSQL: through the stores, as the API issues one. Their modules (and Kysely) are loaded only here. */
async function createThroughDb(o: DbFlags & { user: string }, input: CreateTokenInput): Promise<string> {
  const [{ openForCli }, { issueToken }, { getUserByEmail }] = await Promise.all([
    import('./open.js'),
    import('../resources/tokens/issue.js'),
    import('../resources/users/store.js'),
  ])
  const { db } = await openForCli(o)
  try {
    const u = await getUserByEmail(db.q, o.user)
    if (!u) throw noSuchUser(o.user)
    return (await db.tx(({ q }) => issueToken(q, Date.now(), u.id, input))).value
  } finally {
    await db.close()
  }
}

/**
 * On a SQLite file: its write connection bare (better-sqlite3 alone), the stores' three statements written out here.
 * Loading Kysely and building its queries was a tenth of the command's time; the row and its checks are the API's
 * (newTokenRow).
 */
function createOnFile(file: string, email: string, input: CreateTokenInput): string {
  const raw = openWriteConnection(file, false)
  try {
    const now = Date.now()
    // The workspace row of a new database, as every command that opens one makes it (ensureWorkspace).
    raw.prepare("INSERT INTO workspace (id, name, created_at) VALUES ('workspace', 'Workspace', ?) ON CONFLICT DO NOTHING").run(isoAt(now))
    return raw
      .transaction(() => {
        const user = raw.prepare('SELECT id, role FROM users WHERE lower(email) = lower(?)').get(email) as { id: string; role: Role } | undefined
        if (!user) throw noSuchUser(email)
        const { row, value } = newTokenRow(user, now, input)
        const columns = Object.keys(row)
        raw.prepare(`INSERT INTO tokens (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(...Object.values(row))
        return value
      })
      .immediate()
  } finally {
    raw.close()
  }
}

export async function listTokens(o: DbFlags & { user?: string }): Promise<void> {
  const [{ openForCli }, { tokensWithOwners }] = await Promise.all([import('./open.js'), import('../resources/tokens/store.js')])
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
  const [{ openForCli }, { deleteToken, getToken }] = await Promise.all([import('./open.js'), import('../resources/tokens/store.js')])
  const { db } = await openForCli(o)
  if (!(await getToken(db.q, id))) throw new HttpError(404, 'not_found', `No token ${id}.`)
  await deleteToken(db.q, id)
  await db.close()
  process.stdout.write(`revoked ${id}\n`)
}
