// What the API and `taskd user` share: a password written (and the sessions and links it ends), a login link made.
// Kept apart from the service so that the commands load only this, the rows it writes and the audit seam.
import { isoAt } from '../../clock.js'
import type { Tx } from '../../db/database.js'
import type { Deps } from '../../deps.js'
import type { UsersTable } from '../../db/types.js'
import { invalidField } from '../../errors.js'
import { newId, sha256Hex } from '../../ids.js'
import { signinAudit } from './audit.js'
import { newLinkToken } from './credentials.js'
import { deleteLinksOf, deleteSessionsOf, deleteSpentLinks, insertLoginLink, writePassword } from './store.js'

/** Only people sign in: an agent acts with its tokens. */
export function refuseAgent(user: UsersTable, field: string): void {
  if (user.kind !== 'human') throw invalidField(field, 'Agents act with tokens: only people have a password or sign in.')
}

/**
 * Writes `hash` as the user's password and ends their sessions but `keep` (the session the change came through) and
 * their unused login links: whoever held another way in loses it.
 */
export async function writePasswordIn(
  deps: Deps,
  tx: Tx,
  user: UsersTable,
  hash: string,
  by: { actor: { id: string; name: string } | null; keep?: string; address?: string },
): Promise<void> {
  const now = deps.clock.now()
  await writePassword(tx.q, user.id, hash, isoAt(now))
  const ended = await deleteSessionsOf(tx.q, user.id, by.keep)
  await deleteLinksOf(tx.q, user.id)
  const ref = { id: user.id, name: user.name }
  const at = isoAt(now)
  const via = by.actor ? undefined : ('cli' as const)
  await signinAudit(deps, tx, {
    action: 'password.changed',
    at,
    user: ref,
    actor: by.actor,
    address: by.address,
    via,
    reason: by.actor ? undefined : 'password_reset',
  })
  if (ended.length) await signinAudit(deps, tx, { action: 'session.revoked', at, user: ref, actor: by.actor, sessions: ended, reason: 'password_changed' })
}

/** A single-use login link for a person, usable for `minutes`: `{base_url}/login/<token>` (made by `taskd user login-link`, or by the first start: `via`). */
export async function issueLoginLinkIn(deps: Deps, tx: Tx, user: UsersTable, opts: { minutes: number; baseUrl: string; via?: 'cli' | 'setup' }) {
  const now = deps.clock.now()
  refuseAgent(user, 'email')
  await deleteSpentLinks(tx.q, isoAt(now))
  const token = newLinkToken()
  const expires = isoAt(now + opts.minutes * 60_000)
  await insertLoginLink(tx.q, { id: newId(), user_id: user.id, hash: sha256Hex(token), created_at: isoAt(now), expires_at: expires, used_at: null })
  await signinAudit(deps, tx, { action: 'login_link.created', at: isoAt(now), user: { id: user.id, name: user.name }, actor: null, via: opts.via ?? 'cli' })
  return { url: `${opts.baseUrl.replace(/\/+$/, '')}/login/${token}`, expires }
}
