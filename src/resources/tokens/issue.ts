// Issuing a token: what the create route, `taskd token create` and first-run setup share. Kept apart from the
// service so that the command loads only this (and the rows it writes), not the list machinery of the API.
import type { Q } from '../../db/database.js'
import { notFound } from '../../errors.js'
import { getUser } from '../users/published.js'
import type { CreateTokenInput } from './body.js'
import { tokenView } from './present.js'
import type { TokenView } from './schema.js'
import { insertToken } from './store.js'
import { newTokenRow } from './token-row.js'

export { ownerBeforeFirstUse } from './store.js'
export { parseExpiry } from './token-row.js'

/** What the audit log says of a token: never its value or hash, only what the token list shows too. */
export const tokenDetails = (t: TokenView) => ({ permission: t.permission, holder: t.owner, prefix: t.prefix, expires_at: t.expires_at })

/** Inserts a token for a user; used by the API and the CLI. Full tokens are for owners and admins only. */
export async function issueToken(q: Q, now: number, userId: string, input: CreateTokenInput) {
  const user = await getUser(q, userId)
  if (!user) throw notFound('user')
  const { row, value } = newTokenRow(user, now, input)
  await insertToken(q, row)
  return { token: tokenView(row, { id: user.id, name: user.name }), value }
}
