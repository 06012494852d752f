// What sign-in records for the audit log: signing in and out, refused sign-ins, passwords changed, login links made
// and used. Each entry is written to the audit log (and emitted as `audit.entry`) in the transaction of what it records
// (a refused sign-in has one of its own), so it commits with it; it never holds a password, a cookie value, a CSRF
// token or a link token. Listeners added with onSigninAudit hear each entry after the commit. `taskd user` records
// through it too.
import type { Tx } from '../../db/database.js'
import type { Deps } from '../../deps.js'
import { audit, commandLine, SYSTEM, type Operator } from '../audit/record.js'

export type SigninAction =
  | 'session.created' // signed in (with a password or a login link)
  | 'session.revoked' // signed out, a session revoked, or ended by a password change or a new sign-in in its browser
  | 'signin.failed' // a wrong email or password, or a login link used, expired or unknown
  | 'password.changed' // set or changed by its user, or set with `taskd user set-password`
  | 'login_link.created' // `taskd user login-link`
  | 'login_link.used'

export interface SigninAuditEntry {
  action: SigninAction
  /** When, ISO 8601 UTC. */
  at: string
  /** The account it is about, when known (a refused sign-in for an unknown email names none). */
  user: { id: string; name: string } | null
  /** Who did it: the user, through the API; null for the command line. */
  actor: { id: string; name: string } | null
  /** The session it made or ended (ids only, never a cookie value). */
  sessions?: string[]
  /** The sender's address (behind TASKD_TRUST_PROXY, the client's). */
  address?: string
  /** How the sign-in was attempted. */
  via?: 'password' | 'link' | 'cli' | 'setup'
  /** A refused sign-in: the email as typed (never the password). */
  email?: string
  /** Why: `wrong_credentials`, `link_unusable`, `signed_out`, `revoked`, `password_changed`, `new_sign_in`, `password_reset`. */
  reason?: string
}

type Listener = (entry: SigninAuditEntry) => void
const listeners = new Set<Listener>()

/** Hears every entry after its transaction commits; returns the function that stops it. */
export function onSigninAudit(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Who the log names as the actor: the person through the API, the command line, or for a refused sign-in the email typed. */
function operatorOf(entry: SigninAuditEntry): Operator {
  if (entry.actor) return { as: { type: 'user', id: entry.actor.id, name: entry.actor.name } }
  if (entry.via === 'cli') return commandLine()
  if (entry.via === 'setup') return SYSTEM
  return { as: { type: 'user', id: null, name: entry.email ?? entry.user?.name ?? 'unknown' } }
}

/** Records one entry in `tx`: in the audit log, and for the listeners once it commits. */
export async function signinAudit(deps: Deps, tx: Tx, entry: SigninAuditEntry): Promise<void> {
  const recorded = Object.freeze({ ...entry })
  const { action, user, sessions, address, via, email, reason } = entry
  const details = Object.fromEntries(Object.entries({ sessions, address, via, email, reason }).filter(([, v]) => v !== undefined))
  await audit(deps, tx, operatorOf(entry), action, { type: 'user', id: user?.id ?? null, name: user?.name ?? null }, { details })
  tx.afterCommit(() => {
    for (const listener of listeners) listener(recorded)
  })
}
