// Users and the workspace: the caller, the user list, creation, role changes, the first owner.
import { type Actor, isAdmin, isAdminRole, type Role } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { UsersTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, type ErrorDetail, forbidden, invalidField, notFound, unprocessable } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { audit } from '../audit/record.js'
import { boardViews } from '../boards/present.js'
import { boardsSharedWith } from '../boards/published.js'
import { applyPasswordChangeIn, preparePasswordChange } from '../sessions/service.js'
import { downgradeFullTokens } from '../tokens/published.js'
import { getSigningSecrets } from '../signing-secrets/published.js'
import { urlProblems } from '../webhooks/rules.js'
import { userViews } from './present.js'
import { insertNewUser } from './setup.js'
import { USER_LIST } from './query.js'
import type { CreateUserInput, UpdateMeInput, UpdateUserInput, UserView } from './schema.js'
import { countOwners, getUser, getUserByEmail, insertAgentProfile, updateAgentProfileRow, updateUserRow, usersQuery } from './store.js'

export const getMe = async (deps: Deps, actor: Actor): Promise<UserView> => (await userViews(deps.db.q, [actor.user], actor.user))[0]

export async function getUserFor(deps: Deps, actor: Actor, id: string): Promise<UserView> {
  const user = await getUser(deps.db.q, id)
  if (!user) throw notFound('user')
  return (await userViews(deps.db.q, [user], actor.user))[0]
}

/** Every user of the workspace; `expand=boards` lists the boards each one shares with the caller. */
export function listUsers(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, usersQuery(q), USER_LIST, params, async (rows: UsersTable[], expand) => {
    const users = await userViews(q, rows, actor.user)
    if (!expand.has('boards')) return users
    const shared = await boardsSharedWith(
      q,
      rows.map((r) => r.id),
      actor.user,
    )
    const views = new Map((await boardViews(q, shared)).map((b) => [b.id, b]))
    return users.map((u) => ({ ...u, expand: { boards: shared.filter((b) => b.user_id === u.id).map((b) => views.get(b.id)!) } }))
  })
}

function assertCanManageRoles(actor: Actor, targetRole: Role | undefined, newRole: Role | undefined): void {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins can manage users.')
  if (actor.user.role !== 'owner' && (newRole === 'owner' || targetRole === 'owner')) {
    throw forbidden('Only owners can grant or change the owner role.')
  }
}

/** An agent's owner (a person), wake URL (the outgoing URL rules) and signing secret (one that exists), checked at save. */
async function agentProblems(deps: Deps, q: Q, agent: { owner?: string; wake_url?: string | null; signing_secret?: string | null }): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = []
  if (agent.owner !== undefined) {
    const owner = await getUser(q, agent.owner)
    if (!owner || owner.kind !== 'human') details.push({ path: 'agent.owner', message: 'Must be the id of a person in the workspace.' })
  }
  if (agent.wake_url) details.push(...(await urlProblems(agent.wake_url, deps.config.allowPrivateTargets)).map((d) => ({ ...d, path: 'agent.wake_url' })))
  if (agent.signing_secret && (await getSigningSecrets(q, [agent.signing_secret])).length === 0)
    details.push({ path: 'agent.signing_secret', message: 'No such signing secret.' })
  return details
}

export async function createUser(deps: Deps, actor: Actor, input: CreateUserInput): Promise<UserView> {
  assertCanManageRoles(actor, undefined, input.role)
  const row = await deps.db.tx(async (tx) => {
    const { q } = tx
    const now = deps.clock.now()
    if (!input.agent) {
      const user = await insertNewUser(q, now, { ...input, email: input.email! })
      await audit(deps, tx, actor, 'user.created', user, { details: { role: user.role } })
      return user
    }
    const problems = await agentProblems(deps, q, input.agent)
    if (problems.length) throw unprocessable('The request body is not valid.', problems)
    const id = newId()
    const user = await insertNewUser(q, now, { ...input, email: input.email ?? `agent-${id}@agents.invalid` }, id)
    await insertAgentProfile(q, {
      user_id: user.id,
      owner_id: input.agent.owner,
      wake_url: input.agent.wake_url ?? null,
      signing_secret_id: input.agent.signing_secret ?? null,
      powers: JSON.stringify(input.agent.powers),
      updated_at: isoAt(now),
    })
    const agent = input.agent
    await audit(deps, tx, actor, 'agent.created', user, {
      details: { owner: agent.owner, powers: agent.powers, wake_url: agent.wake_url ? 'set' : null, signing_secret: agent.signing_secret ?? null },
    })
    return user
  })
  return (await userViews(deps.db.q, [row], actor.user))[0]
}

/** An email is one user's (in any case): taking another's is a conflict, as when creating a user. */
async function refuseTakenEmail(q: Q, id: string, email: string | undefined): Promise<void> {
  const clash = email ? await getUserByEmail(q, email) : undefined
  if (clash && clash.id !== id) throw conflict(`A user with email ${email} already exists.`)
}

/**
 * The caller's own name, email and password: any token that may write, whatever the role. A password is checked and
 * hashed before the transaction (see the sessions service), and written in it with the name and email.
 */
export async function updateMe(deps: Deps, actor: Actor, input: UpdateMeInput): Promise<UserView> {
  const { password, current_password, ...fields } = input
  const change = password === undefined ? undefined : await preparePasswordChange(deps, actor, { password, current_password })
  return deps.db.tx(async (tx) => {
    const { q } = tx
    await refuseTakenEmail(q, actor.user.id, fields.email)
    const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
    if (Object.keys(set).length) await updateUserRow(q, actor.user.id, set)
    if (change) await applyPasswordChangeIn(deps, tx, actor, change)
    return (await userViews(q, [(await getUser(q, actor.user.id))!], actor.user))[0]
  })
}

export function updateUser(deps: Deps, actor: Actor, id: string, input: UpdateUserInput): Promise<UserView> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const user = await getUser(q, id)
    if (!user) throw notFound('user')
    assertCanManageRoles(actor, user.role, input.role)
    if (user.role === 'owner' && input.role && input.role !== 'owner' && (await countOwners(q)) === 1) {
      throw conflict('The workspace must keep at least one owner.')
    }
    await refuseTakenEmail(q, id, input.email)
    if (user.kind === 'agent' && input.role && input.role !== 'member') throw invalidField('role', 'An agent is always a member.')
    if (input.agent) {
      if (user.kind !== 'agent') throw invalidField('agent', 'Only agents have an agent profile.')
      const problems = await agentProblems(deps, q, input.agent)
      if (problems.length) throw unprocessable('The request body is not valid.', problems)
      const { owner, wake_url, signing_secret, powers } = input.agent
      const profile = Object.fromEntries(
        Object.entries({
          owner_id: owner,
          wake_url,
          signing_secret_id: signing_secret,
          powers: powers && JSON.stringify(powers),
        }).filter(([, v]) => v !== undefined),
      )
      await updateAgentProfileRow(q, id, { ...profile, updated_at: isoAt(deps.clock.now()) })
    }
    const { agent: _agent, ...fields } = input
    const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
    if (Object.keys(set).length) await updateUserRow(q, id, set)
    // Full Access is for owners and admins only: a demotion turns the user's full tokens into write tokens.
    if (input.role && !isAdminRole(input.role)) await downgradeFullTokens(q, id)
    const now = (await getUser(q, id))!
    if (input.role && input.role !== user.role) await audit(deps, tx, actor, 'user.role_changed', now, { details: { from: user.role, to: input.role } })
    if (user.kind === 'agent') {
      // What changed, by name: the wake URL can carry a credential in its query, so it is not written out.
      const changed = [
        ...Object.keys(fields).filter((k) => fields[k as keyof typeof fields] !== undefined),
        ...Object.keys(input.agent ?? {}).filter((k) => input.agent![k as keyof typeof input.agent] !== undefined),
      ]
      if (changed.length) await audit(deps, tx, actor, 'agent.updated', now, { details: { changed } })
    }
    return (await userViews(q, [now], actor.user))[0]
  })
}
