// Signing secrets: workspace keys for the signed calls taskd makes. Everyone may list them (to pick one by name);
// owners and admins create, replace and delete them. The value is sealed under the master key and never shown.
import { type Actor, isAdmin } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { SecretBox } from '../../crypto.js'
import type { SigningSecretsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, forbidden, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { audit } from '../audit/record.js'
import { automationsUsingSecret } from '../automations/published.js'
import { signingSecretViews } from './present.js'
import { SIGNING_SECRET_LIST } from './query.js'
import type { CreateSigningSecretInput, ReplaceSigningSecretInput, SigningSecretView } from './schema.js'
import {
  agentsUsingSecret,
  deleteSigningSecretRow,
  getSigningSecret,
  getSigningSecrets,
  insertSigningSecret,
  signingSecretsQuery,
  updateSigningSecretRow,
} from './store.js'

/** The sealed value is bound to its row, so a value copied into another row does not open there. */
const context = (id: string) => `signing-secret:${id}`
const seal = (box: SecretBox, id: string, value: string) => box.seal(value, context(id))

/** The values of signing secrets, for the signed calls taskd makes and nothing else; a deleted one is absent. */
export async function openSigningSecrets(deps: Deps, ids: readonly string[]): Promise<Map<string, string>> {
  return new Map((await getSigningSecrets(deps.db.q, ids)).map((row) => [row.id, deps.secrets.open(row.value_enc, context(row.id))]))
}

function assertManager(actor: Actor): void {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins manage signing secrets.')
}

const view = async (deps: Deps, row: SigningSecretsTable): Promise<SigningSecretView> => (await signingSecretViews(deps.db.q, [row]))[0]

export function listSigningSecrets(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, signingSecretsQuery(q), SIGNING_SECRET_LIST, params, (rows: SigningSecretsTable[]) => signingSecretViews(q, rows))
}

export async function getSigningSecretFor(deps: Deps, actor: Actor, id: string): Promise<SigningSecretView> {
  const row = await getSigningSecret(deps.db.q, id)
  if (!row) throw notFound('signing secret')
  return view(deps, row)
}

export async function createSigningSecret(deps: Deps, actor: Actor, input: CreateSigningSecretInput): Promise<SigningSecretView> {
  assertManager(actor)
  const id = newId()
  const at = isoAt(deps.clock.now())
  const row = { id, name: input.name, value_enc: seal(deps.secrets, id, input.value), created_by: actor.user.id, created_at: at, updated_at: at }
  await deps.db.tx(async (tx) => {
    await insertSigningSecret(tx.q, row)
    await audit(deps, tx, actor, 'signing_secret.created', row)
  })
  return view(deps, row)
}

/** PUT: a new value (and optionally a new name) replaces the stored one at once. */
export async function replaceSigningSecret(deps: Deps, actor: Actor, id: string, input: ReplaceSigningSecretInput): Promise<SigningSecretView> {
  assertManager(actor)
  const row = await deps.db.tx(async (tx) => {
    const { q } = tx
    const set = { value_enc: seal(deps.secrets, id, input.value), updated_at: isoAt(deps.clock.now()), ...(input.name ? { name: input.name } : {}) }
    if (!(await updateSigningSecretRow(q, id, set))) throw notFound('signing secret')
    const now = (await getSigningSecret(q, id))!
    // A new value, by name only.
    await audit(deps, tx, actor, 'signing_secret.updated', now, { details: { changed: input.name ? ['value', 'name'] : ['value'] } })
    return now
  })
  return view(deps, row)
}

export async function deleteSigningSecret(deps: Deps, actor: Actor, id: string): Promise<void> {
  assertManager(actor)
  await deps.db.tx(async (tx) => {
    const { q } = tx
    const users = await automationsUsingSecret(q, id)
    if (users.length) throw conflict(`Automations use this signing secret: ${users.map((a) => `${a.name} (${a.id})`).join(', ')}. Change their steps first.`)
    const agents = await agentsUsingSecret(q, id)
    if (agents.length) throw conflict(`These use this signing secret: ${agents.join(', ')}. Change them first.`)
    const row = await getSigningSecret(q, id)
    if (!row || !(await deleteSigningSecretRow(q, id))) throw notFound('signing secret')
    await audit(deps, tx, actor, 'signing_secret.deleted', row)
  })
}
