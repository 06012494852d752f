// taskd user create | set-password | login-link: add a user and print its id; set a person's password (read from
// stdin, never the command line); print a single-use login link (the commands' flags: src/cli/index.ts).
import type { Role } from '../access/roles.js'
import { publicBaseUrl } from '../config.js'
import { checkedInput, HttpError, invalidBody } from '../errors.js'
import { issueLoginLinkIn, refuseAgent, writePasswordIn } from '../resources/sessions/accounts.js'
import { hashPassword, passwordProblem } from '../resources/sessions/password.js'
import { insertNewUser } from '../resources/users/setup.js'
import { CreateUserBody } from '../resources/users/schema.js'
import { getUserByEmail } from '../resources/users/store.js'
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

/** The person with this email, or the command's error. */
async function personOf(db: Awaited<ReturnType<typeof openForCli>>['db'], email: string) {
  const user = await getUserByEmail(db.q, email)
  if (!user) throw new HttpError(404, 'not_found', `No user with email ${email}.`)
  refuseAgent(user, 'email')
  return user
}

/** Sets a person's password, read from stdin; their sessions and unused login links end. */
export async function setPassword(email: string, o: DbFlags): Promise<void> {
  const password = await readPassword()
  const problem = passwordProblem(password)
  if (problem) throw invalidBody([{ path: 'password', message: problem }])
  const { db, config } = await openForCli(o)
  try {
    const user = await personOf(db, email)
    const hash = await hashPassword(password)
    await db.tx((tx) => writePasswordIn(cliDeps(db, config), tx, user, hash, { actor: null }))
  } finally {
    await db.close()
  }
  process.stdout.write(`password set for ${email}; their sessions have ended\n`)
}

/** Prints a single-use login link for a person, and nothing else, on stdout. */
export async function loginLink(email: string, o: DbFlags): Promise<void> {
  const { config, db } = await openForCli(o)
  let link: { url: string; expires: string }
  try {
    const user = await personOf(db, email)
    link = await db.tx((tx) => issueLoginLinkIn(cliDeps(db, config), tx, user, { minutes: config.loginLinkMinutes, baseUrl: publicBaseUrl(config) }))
  } finally {
    await db.close()
  }
  process.stdout.write(`${link.url}\n`)
  process.stderr.write(`usable once, until ${link.expires}\n`)
}

/**
 * The password: the first line of stdin (a pipe or a file), or typed at a terminal without echo. Never an argument,
 * which other users of the machine could read from the process list and the shell keeps in its history.
 */
async function readPassword(): Promise<string> {
  const stdin = process.stdin
  if (!stdin.isTTY) {
    let text = ''
    for await (const chunk of stdin) {
      text += String(chunk)
      if (text.includes('\n') || text.length > 8192) break
    }
    return text.split(/\r?\n/)[0]
  }
  process.stderr.write('Password: ')
  stdin.setRawMode(true)
  stdin.setEncoding('utf8')
  return new Promise((resolve, reject) => {
    let typed = ''
    const done = (fn: () => void) => {
      stdin.setRawMode(false)
      stdin.pause()
      stdin.off('data', onData)
      process.stderr.write('\n')
      fn()
    }
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(() => resolve(typed))
        if (ch === '\u0003') return done(() => reject(new Error('cancelled')))
        if (ch === '\u007f' || ch === '\b') typed = [...typed].slice(0, -1).join('')
        else if (ch >= ' ') typed += ch
      }
    }
    stdin.on('data', onData)
    stdin.resume()
  })
}
