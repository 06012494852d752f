// A new token's row and value, its input checked against its holder: what issueToken inserts through the store, and
// `taskd token create` on a SQLite file through a bare connection (src/cli/token.ts). No database here, no Kysely.
import type { Role } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { TokensTable } from '../../db/types.js'
import { unprocessable } from '../../errors.js'
import { newId, newTokenValue, sha256Hex } from '../../ids.js'
import type { CreateTokenInput } from './body.js'

/** A bare date means the end of that day, UTC. */
export function parseExpiry(value: string): number | null {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T23:59:59.999Z`) : Date.parse(value)
  return Number.isNaN(ms) ? null : ms
}

/** Full tokens are for owners and admins only; an expiry must be in the future. */
export function newTokenRow(user: { id: string; role: Role }, now: number, input: CreateTokenInput): { row: TokensTable; value: string } {
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
  return { row, value }
}
