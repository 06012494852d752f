// Sign-in for people: a session from a password or a login link (rate-limited; one answer for every wrong email or
// password, after the same work), the caller's sessions listed and revoked, signing out, and a password set or
// changed (for PATCH /v1/users/me). Hashing runs before the transaction, never while it holds the writer.
import { type Actor, actorRef } from '../../access/roles.js'
import { DAY_MS, isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import type { SessionsTable, UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, forbidden, invalidField, notFound, unauthorized } from '../../errors.js'
import { newId, sha256Hex } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { refuseAgent, writePasswordIn } from './accounts.js'
import { signinAudit } from './audit.js'
import { csrfTokenOf, LINK_TOKEN, newSessionValue, SESSION_VALUE } from './credentials.js'
import { accountKey, clearFailures, countAttempt, startTry } from './limits.js'
import { hashPassword, verifyPassword } from './password.js'
import { sessionView } from './present.js'
import { SESSION_LIST } from './query.js'
import type { CreateSessionInput, SessionView, SignedIn } from './schema.js'
import {
  deleteEndedSessionsOf,
  deleteSession,
  getSession,
  getUserRow,
  insertSession,
  passwordHashOf,
  sessionByHash,
  sessionsQuery,
  useLoginLink,
  userWithPassword,
} from './store.js'

/** The one answer to a wrong email, a wrong password, or an account without a password. */
const WRONG_CREDENTIALS = 'Wrong email or password.'
const LINK_UNUSABLE = 'This login link cannot be used: it was used already, has expired, or is not one taskd made. Ask for a new one.'

/** Where a sign-in comes from: the sender's address, the browser's name, and the session cookie it already holds. */
export interface Client {
  address: string
  userAgent: string | null
  presented?: string
}

/** A new session, its cookie's value (given to the browser, never stored) and how long the cookie lasts. */
export interface Made {
  body: SignedIn
  value: string
  maxAgeSeconds: number
}

/** When a session ends if not used again after `now`: the idle limit, but never past the longest lifetime. */
export const endOf = (deps: Deps, created: number, now: number): number =>
  Math.min(now + deps.config.sessionIdleDays * DAY_MS, created + deps.config.sessionMaxDays * DAY_MS)

const userRef = (u: UsersTable) => ({ id: u.id, name: u.name })

/**
 * A new session for `user`, in `tx`: a new random value every time (the browser's old session, if it sent one, is
 * ended: a cookie planted before sign-in is worth nothing after it), the user's ended sessions tidied away.
 */
async function createSessionIn(deps: Deps, tx: Tx, user: UsersTable, via: SessionsTable['via'], client: Client): Promise<Made> {
  const now = deps.clock.now()
  const at = isoAt(now)
  const held = client.presented && SESSION_VALUE.test(client.presented) ? await sessionByHash(tx.q, sha256Hex(client.presented)) : undefined
  if (held && (await deleteSession(tx.q, held.session.id)))
    await signinAudit(deps, tx, {
      action: 'session.revoked',
      at,
      user: userRef(held.user),
      actor: userRef(user),
      sessions: [held.session.id],
      reason: 'new_sign_in',
    })
  await deleteEndedSessionsOf(tx.q, user.id, at)
  const value = newSessionValue()
  const expires = endOf(deps, now, now)
  const row: SessionsTable = {
    id: newId(),
    user_id: user.id,
    hash: sha256Hex(value),
    via,
    user_agent: client.userAgent,
    address: client.address || null,
    created_at: at,
    last_used_at: at,
    expires_at: isoAt(expires),
  }
  await insertSession(tx.q, row)
  await signinAudit(deps, tx, { action: 'session.created', at, user: userRef(user), actor: userRef(user), sessions: [row.id], address: client.address, via })
  return {
    body: { session: sessionView(row, user, row.id), csrf_token: csrfTokenOf(value), password_set: (await passwordHashOf(tx.q, user.id)) !== undefined },
    value,
    maxAgeSeconds: (expires - now) / 1000,
  }
}

/** A refused sign-in, recorded in a transaction of its own (the attempt itself changed nothing). */
async function recordFailure(deps: Deps, entry: { user: UsersTable | undefined; via: 'password' | 'link'; email?: string; address?: string; reason: string }) {
  await deps.db.tx((tx) =>
    signinAudit(deps, tx, {
      action: 'signin.failed',
      at: isoAt(deps.clock.now()),
      user: entry.user ? userRef(entry.user) : null,
      actor: null,
      via: entry.via,
      email: entry.email,
      address: entry.address,
      reason: entry.reason,
    }),
  )
}

/** POST /v1/sessions: a session from an email and password, or from a login link. */
export async function signIn(deps: Deps, input: CreateSessionInput, client: Client): Promise<Made> {
  countAttempt(deps, client.address)
  if (input.link_token !== undefined) return signInWithLink(deps, input.link_token, client)
  const email = input.email!
  const found = await userWithPassword(deps.db.q, email)
  // Only people sign in, and only with a password they have: every other case does the same work and gives the same answer.
  const person = found?.user.kind === 'human' && found.hash !== null ? found : undefined
  const account = accountKey(found?.user.id, email)
  startTry(deps, account)
  if (!(await verifyPassword(input.password!, person?.hash ?? undefined)) || !person) {
    await recordFailure(deps, { user: found?.user, via: 'password', email, address: client.address, reason: 'wrong_credentials' })
    throw unauthorized(WRONG_CREDENTIALS)
  }
  clearFailures(deps, account)
  return deps.db.tx(async (tx) => {
    // Changed since it was checked (hashing runs outside the transaction): the password just checked is no longer it.
    if ((await passwordHashOf(tx.q, person.user.id)) !== person.hash) throw unauthorized(WRONG_CREDENTIALS)
    return createSessionIn(deps, tx, person.user, 'password', client)
  })
}

async function signInWithLink(deps: Deps, token: string, client: Client): Promise<Made> {
  const made = LINK_TOKEN.test(token)
    ? await deps.db.tx(async (tx) => {
        const at = isoAt(deps.clock.now())
        // One statement marks it used, and only while unused and unexpired: two requests with it cannot both win.
        const link = await useLoginLink(tx.q, sha256Hex(token), at)
        const user = link && (await getUserRow(tx.q, link.user_id))
        if (!link || !user || user.kind !== 'human') return undefined
        await signinAudit(deps, tx, { action: 'login_link.used', at, user: userRef(user), actor: userRef(user), address: client.address, via: 'link' })
        return createSessionIn(deps, tx, user, 'link', client)
      })
    : undefined
  if (!made) {
    await recordFailure(deps, { user: undefined, via: 'link', address: client.address, reason: 'link_unusable' })
    throw unauthorized(LINK_UNUSABLE)
  }
  return made
}

const notSignedIn = () => notFound('session: this request was not made with a session cookie')

/** The session this request came with, and its CSRF token again (for a page loaded anew). */
export async function currentSession(deps: Deps, actor: Actor, value: string | undefined): Promise<SignedIn> {
  if (!actor.sessionId || !value) throw notSignedIn()
  const row = await getSession(deps.db.q, actor.sessionId)
  if (!row) throw notSignedIn()
  return {
    session: sessionView(row, actor.user, actor.sessionId),
    csrf_token: csrfTokenOf(value),
    password_set: (await passwordHashOf(deps.db.q, actor.user.id)) !== undefined,
  }
}

/** Your sessions that have not ended. */
export function listSessions(deps: Deps, actor: Actor, params: ListParams) {
  const base = sessionsQuery(deps.db.q, actor.user.id, isoAt(deps.clock.now()))
  return listPage(deps.db, base, SESSION_LIST, params, async (rows: SessionsTable[]) => rows.map((r) => sessionView(r, actor.user, actor.sessionId)))
}

/** One of your sessions; another's, or one that has ended, is a 404. */
export async function getSessionFor(deps: Deps, actor: Actor, id: string): Promise<SessionView> {
  const row = await getSession(deps.db.q, id)
  if (!row || row.user_id !== actor.user.id || Date.parse(row.expires_at) <= deps.clock.now()) throw notFound('session')
  return sessionView(row, actor.user, actor.sessionId)
}

/** Ends one of your sessions (404 for anyone else's); says whether it was the one this request came with. */
export async function revokeSession(deps: Deps, actor: Actor, id: string, reason: 'signed_out' | 'revoked' = 'revoked'): Promise<boolean> {
  return deps.db.tx(async (tx) => {
    const row = await getSession(tx.q, id)
    if (!row || row.user_id !== actor.user.id || !(await deleteSession(tx.q, id))) throw notFound('session')
    await signinAudit(deps, tx, {
      action: 'session.revoked',
      at: isoAt(deps.clock.now()),
      user: userRef(actor.user),
      actor: actorRef(actor),
      sessions: [id],
      reason,
    })
    return id === actor.sessionId
  })
}

/** Signing out: the session this request came with ends. */
export async function signOut(deps: Deps, actor: Actor): Promise<void> {
  if (!actor.sessionId) throw notSignedIn()
  await revokeSession(deps, actor, actor.sessionId, 'signed_out')
}

/** A password change checked and hashed, to be written by applyPasswordChangeIn. */
export interface PasswordChange {
  hash: string
  /** The stored hash current_password was checked against (undefined: the user had none). */
  was: string | undefined
}

/**
 * Checks a password change of the caller and hashes the new password, outside any transaction. With a password set,
 * `current_password` must be it (a wrong one counts against the account's sign-in failures). Without one, the first
 * password is set only from a session (which, for a user without a password, a login link made); a token cannot set
 * it, so a leaked token cannot turn itself into a browser session.
 */
export async function preparePasswordChange(deps: Deps, actor: Actor, input: { password: string; current_password?: string }): Promise<PasswordChange> {
  refuseAgent(actor.user, 'password')
  const was = await passwordHashOf(deps.db.q, actor.user.id)
  if (was === undefined) {
    if (!actor.sessionId)
      throw forbidden(
        'A first password is set from a browser session (sign in with a login link: taskd user login-link EMAIL), or by `taskd user set-password EMAIL` on the server.',
      )
  } else {
    if (input.current_password === undefined) throw invalidField('current_password', 'current_password is required to change your password.')
    const account = accountKey(actor.user.id, actor.user.email)
    startTry(deps, account)
    if (!(await verifyPassword(input.current_password, was))) {
      await recordFailure(deps, { user: actor.user, via: 'password', reason: 'wrong_current_password' })
      throw invalidField('current_password', 'current_password is not your current password.')
    }
    clearFailures(deps, account)
  }
  return { hash: await hashPassword(input.password), was }
}

/** Writes a checked change in `tx`: the caller's other sessions and unused login links end. */
export async function applyPasswordChangeIn(deps: Deps, tx: Tx, actor: Actor, change: PasswordChange): Promise<void> {
  if ((await passwordHashOf(tx.q, actor.user.id)) !== change.was) throw conflict('Your password was changed meanwhile: try again with the new one.')
  await writePasswordIn(deps, tx, actor.user, change.hash, { actor: actorRef(actor), keep: actor.sessionId })
}
