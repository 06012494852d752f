// Issuing a token: what the create route, `taskd token create` and first-run setup share. Kept apart from the
// service so that the command loads only this (and the rows it writes), not the list machinery of the API.
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { TokensTable } from '../../db/types.js'
import { notFound, unprocessable } from '../../errors.js'
import { newId, newTokenValue, sha256Hex } from '../../ids.js'
import { getUser } from '../users/published.js'
import { tokenView } from './present.js'
import type { CreateTokenInput, TokenView } from './schema.js'
import { insertToken } from './store.js'

export { ownerBeforeFirstUse } from './store.js'

/** A bare date means the end of that day, UTC. */
export function parseExpiry(value: string): number | null {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T23:59:59.999Z`) : Date.parse(value)
  return Number.isNaN(ms) ? null : ms
}

/** What the audit log says of a token: never its value or hash, only what the token list shows too. */
export const tokenDetails = (t: TokenView) => ({ permission: t.permission, holder: t.owner, prefix: t.prefix, expires_at: t.expires_at })

/** Inserts a token for a user; used by the API and the CLI. Full tokens are for owners and admins only. */
export async function issueToken(q: Q, now: number, userId: string, input: CreateTokenInput) {
  const user = await getUser(q, userId)
  if (!user) throw notFound('user')
  if (input.permission === 'full' && user.role === 'member') {
    throw unprocessable('Only workspace owners and admins can hold a Full Access token.', [{ path: 'permission', message: 'full needs an owner or admin' }])
  }
  let expires: string | null = null
  if (input.expires_at) {
    const ms = parseExpiry(input.expires_at)
    if (ms === null) throw unprocessable('The request body is not valid.', [{ path: 'expires_at', message: 'Must be an ISO 8601 date or date-time.' }])
    if (ms <= now) throw unprocessable('The request body is not valid.', [{ path: 'expires_at', message: 'Must be in the future.' }])
    expires = isoAt(ms)
  }
  const value = newTokenValue()
  const row: TokensTable = {
    id: newId(),
    user_id: user.id,
    name: input.name,
    permission: input.permission,
    hash: sha256Hex(value),
    prefix: value.slice(0, 7),
    expires_at: expires,
    last_used_at: null,
    created_at: isoAt(now),
    rate_window_start: 0,
    rate_count: 0,
  }
  await insertToken(q, row)
  return { token: tokenView(row, { id: user.id, name: user.name }), value }
}
