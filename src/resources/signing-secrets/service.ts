// Signing secrets: workspace keys for the signed calls taskd makes. Everyone may list them (to pick one by name);
// owners and admins create, replace and delete them. The value is sealed under the master key and never shown.
import { type Actor, isAdmin } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { SecretBox } from '../../crypto.js'
import type { SigningSecretsTable } from '../../db/types.js'
import { rotationEnd } from '../../delivery/credentials.js'
import { generateSecret, type SigningKeys } from '../../delivery/signing.js'
import type { Deps } from '../../deps.js'
import { conflict, forbidden, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { audit } from '../audit/record.js'
import { automationsUsingSecret } from '../automations/published.js'
import { signingSecretViews } from './present.js'
import { SIGNING_SECRET_LIST } from './query.js'
import type { CreateSigningSecretInput, ReplaceSigningSecretInput, RotateSigningSecretInput, SigningSecretView } from './schema.js'
import {
  agentsUsingSecret,
  deleteSigningSecretRow,
  forgetPreviousValues,
  getSigningSecret,
  getSigningSecrets,
  insertSigningSecret,
  signingSecretsQuery,
  updateSigningSecretRow,
} from './store.js'

/** The sealed value is bound to its row, so a value copied into another row does not open there. */
const context = (id: string) => `signing-secret:${id}`
const seal = (box: SecretBox, id: string, value: string) => box.seal(value, context(id))

/**
 * The values of signing secrets, for the signed calls taskd makes and nothing else: the current value, and the one
 * before the last rotation while its overlap lasts (it signs `webhook-signature` beside the current one); a deleted
 * secret is absent.
 */
export async function openSigningKeys(deps: Deps, ids: readonly string[]): Promise<Map<string, SigningKeys>> {
  const now = deps.clock.now()
  return new Map(
    (await getSigningSecrets(deps.db.q, ids)).map((row) => {
      const previous =
        row.previous_value_enc !== null && rotationEnd(row.previous_until, now) !== null ? deps.secrets.open(row.previous_value_enc, context(row.id)) : null
      return [row.id, { current: deps.secrets.open(row.value_enc, context(row.id)), previous }]
    }),
  )
}

function assertManager(actor: Actor): void {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins manage signing secrets.')
}

const view = async (deps: Deps, row: SigningSecretsTable): Promise<SigningSecretView> => (await signingSecretViews(deps.db.q, [row], deps.clock.now()))[0]

export function listSigningSecrets(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, signingSecretsQuery(q), SIGNING_SECRET_LIST, params, (rows: SigningSecretsTable[]) => signingSecretViews(q, rows, deps.clock.now()))
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
  const row: SigningSecretsTable = {
    id,
    name: input.name,
    value_enc: seal(deps.secrets, id, input.value),
    created_by: actor.user.id,
    created_at: at,
    updated_at: at,
    previous_value_enc: null,
    previous_until: null,
  }
  await deps.db.tx(async (tx) => {
    await insertSigningSecret(tx.q, row)
    await audit(deps, tx, actor, 'signing_secret.created', row)
  })
  return view(deps, row)
}

/** PUT: a new value (and optionally a new name) replaces the stored one at once, and ends a rotation's overlap. */
export async function replaceSigningSecret(deps: Deps, actor: Actor, id: string, input: ReplaceSigningSecretInput): Promise<SigningSecretView> {
  assertManager(actor)
  const row = await deps.db.tx(async (tx) => {
    const { q } = tx
    const set = {
      value_enc: seal(deps.secrets, id, input.value),
      previous_value_enc: null,
      previous_until: null,
      updated_at: isoAt(deps.clock.now()),
      ...(input.name ? { name: input.name } : {}),
    }
    if (!(await updateSigningSecretRow(q, id, set))) throw notFound('signing secret')
    const now = (await getSigningSecret(q, id))!
    // A new value, by name only.
    await audit(deps, tx, actor, 'signing_secret.updated', now, { details: { changed: input.name ? ['value', 'name'] : ['value'] } })
    return now
  })
  return view(deps, row)
}

/**
 * Rotation without downtime: the given value (or a generated one, answered this once) signs from now on, and the value
 * before it keeps signing `webhook-signature` beside it for `overlap_hours`, so receivers can move to the new one
 * meanwhile. The single-value X-Webhook-Signature-V2 uses the new value at once. A rotation during an overlap ends
 * that overlap: only the value it replaces is kept. Nothing is emitted (changing a secret never was).
 */
export async function rotateSigningSecret(
  deps: Deps,
  actor: Actor,
  id: string,
  input: RotateSigningSecretInput,
): Promise<{ signing_secret: SigningSecretView; value?: string }> {
  assertManager(actor)
  const generated = input.value === undefined ? generateSecret() : undefined
  const row = await deps.db.tx(async (tx) => {
    const { q } = tx
    const old = await getSigningSecret(q, id)
    if (!old) throw notFound('signing secret')
    const now = deps.clock.now()
    const overlap = input.overlap_hours > 0
    const set = {
      value_enc: seal(deps.secrets, id, input.value ?? generated!),
      // The sealed value moves as it is: it stays bound to this row.
      previous_value_enc: overlap ? old.value_enc : null,
      previous_until: overlap ? isoAt(now + input.overlap_hours * 3_600_000) : null,
      updated_at: isoAt(now),
    }
    if (!(await updateSigningSecretRow(q, id, set))) throw notFound('signing secret')
    // What changed, never a value: the overlap's end, when the old value still signs.
    await audit(deps, tx, actor, 'signing_secret.rotated', old, { details: { previous_until: set.previous_until } })
    return { ...old, ...set }
  })
  return { signing_secret: await view(deps, row), ...(generated === undefined ? {} : { value: generated }) }
}

/** The housekeeping pass: values whose rotation overlap has ended are forgotten (signing already stopped using them). */
export const forgetRotatedSigningSecrets = (deps: Deps): Promise<void> => deps.db.tx(({ q }) => forgetPreviousValues(q, isoAt(deps.clock.now())))

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
