// Personal access tokens: creation (value shown once), listing and revocation.
import { managesTokensOf, tokenHoldersOf } from '../../access/records.js'
import { type Actor, isAdmin } from '../../access/roles.js'
import type { TokensTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { forbidden, invalidField, notFound } from '../../errors.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { audit } from '../audit/record.js'
import { userView } from '../users/present.js'
import { getAgentProfile, getUser, getUsers } from '../users/published.js'
import { tokenView } from './present.js'
import { TOKEN_LIST } from './query.js'
import type { CreateTokenInput } from './schema.js'
import { issueToken, tokenDetails } from './issue.js'
import { deleteToken, getToken, tokensQuery } from './store.js'

export async function createToken(deps: Deps, actor: Actor, input: CreateTokenInput) {
  // A lesser token must not mint a Full Access one, or a leaked write token would escalate.
  if (input.permission === 'full' && isAdmin(actor) && actor.permission !== 'full') {
    throw forbidden('Creating a Full Access token needs a Full Access token.')
  }
  return deps.db.tx(async (tx) => {
    const holder = input.user ?? actor.user.id
    if (holder !== actor.user.id) {
      const user = await getUser(tx.q, holder)
      if (!user) throw notFound('user')
      if (user.kind !== 'agent') throw invalidField('user', 'Tokens are made for yourself, or for an agent.')
      if (!managesTokensOf(actor.user, holder, (await getAgentProfile(tx.q, holder))?.owner_id))
        throw forbidden("Only the agent's owner, owners and admins make tokens for an agent.")
    }
    const issued = await issueToken(tx.q, deps.clock.now(), holder, input)
    await audit(deps, tx, actor, 'token.created', issued.token, { details: tokenDetails(issued.token) })
    return issued
  })
}

/** Your own tokens and those of the agents you own; owners and admins see every token of the workspace. */
export function listTokens(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, tokensQuery(q, tokenHoldersOf(q, actor.user)), TOKEN_LIST, params, async (rows: TokensTable[], expand) => {
    const owners = new Map(
      (
        await getUsers(
          q,
          rows.map((r) => r.user_id),
        )
      ).map((u) => [u.id, u]),
    )
    return rows.map((r) => {
      const owner = owners.get(r.user_id)!
      const view = tokenView(r, { id: owner.id, name: owner.name })
      return expand.has('owner') ? { ...view, expand: { owner: userView(owner) } } : view
    })
  })
}

export function revokeToken(deps: Deps, actor: Actor, id: string): Promise<void> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const token = await getToken(q, id)
    // Who may not manage a token does not learn that it exists.
    if (!token || !managesTokensOf(actor.user, token.user_id, (await getAgentProfile(q, token.user_id))?.owner_id)) throw notFound('token')
    await deleteToken(q, id)
    const holder = await getUser(q, token.user_id)
    await audit(deps, tx, actor, 'token.revoked', token, { details: tokenDetails(tokenView(token, { id: token.user_id, name: holder?.name ?? '' })) })
  })
}
