// Outgoing webhook subscriptions: create, read, list, update, delete, with write-only secrets and who-may-see rules.
import { type Actor, isAdmin } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { WebhooksTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, notFound, unprocessable, type ErrorDetail } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { mergeAuth, openAuth, sealAuth, sealSecret, type StoredAuth } from '../../delivery/credentials.js'
import { generateSecret } from '../../delivery/signing.js'
import { audit } from '../audit/record.js'
import { expandBoards } from '../boards/present.js'
import { getUser } from '../users/published.js'
import { webhookViews } from './present.js'
import { WEBHOOK_LIST } from './query.js'
import { boardProblems, eventProblems, headerProblems, reentryProblems, urlProblems } from './rules.js'
import type { CreateWebhookInput, RotateWebhookSecretInput, WebhookInput, WebhookView } from './schema.js'
import {
  deleteWebhookRow,
  forgetPreviousSecrets,
  getWebhook,
  insertWebhook,
  pauseSubscriptionsOnlyOn,
  setWebhookBoards,
  updateWebhookRow,
  webhooksQuery,
} from './store.js'
import { fromJsonColumn, StringList, StringMap } from '../../db/json.js'

/** Owners and admins see every subscription, everyone else only their own; anything else is a 404. */
export async function visibleWebhook(q: Q, actor: Actor, id: string): Promise<WebhooksTable> {
  const row = await getWebhook(q, id)
  if (!row || (!isAdmin(actor) && row.created_by !== actor.user.id)) throw notFound('webhook')
  return row
}

export const getWebhookFor = async (deps: Deps, actor: Actor, id: string): Promise<WebhookView> =>
  (await webhookViews(deps.db.q, [await visibleWebhook(deps.db.q, actor, id)], deps.clock.now()))[0]

/** Owners and admins list every subscription, others their own; `expand=boards` shows only boards the caller may see. */
export function listWebhooks(deps: Deps, actor: Actor, params: ListParams) {
  const mine = isAdmin(actor) ? undefined : actor.user.id
  const { q } = deps.db
  return listPage(deps.db, webhooksQuery(q, mine), WEBHOOK_LIST, params, async (rows: WebhooksTable[], expand) =>
    expandBoards(q, await webhookViews(q, rows, deps.clock.now()), expand, actor.user),
  )
}

/**
 * Pauses the subscriptions that name this board and no other, before the board (and their link to it) is deleted for
 * good, marked `board_deleted`: the board's deletion events queued for them still go out (see gateBatch).
 */
export const pauseSubscriptionsOfBoard = (deps: Deps, q: Q, boardId: string) => pauseSubscriptionsOnlyOn(q, boardId, isoAt(deps.clock.now()))

const invalid = (details: ErrorDetail[]) => unprocessable('The webhook is not valid.', details)

/** Checks that need no database (URL and DNS among them) run before the transaction, so it stays short. */
async function checkInput(deps: Deps, input: WebhookInput): Promise<void> {
  const details: ErrorDetail[] = []
  if (input.url !== undefined) details.push(...(await urlProblems(input.url, deps.config.allowPrivateTargets)))
  if (input.events !== undefined) details.push(...eventProblems(input.events))
  if (input.headers !== undefined) details.push(...headerProblems(input.headers))
  if (input.generate_secret && input.secret) details.push({ path: 'secret', message: 'Send either secret or generate_secret, not both.' })
  if (details.length) throw invalid(details)
}

/** The secret to store: a generated one, a new one, null to clear, or undefined to keep (blank on edit). */
function nextSecret(input: WebhookInput): { value: string | null | undefined; generated?: string } {
  if (input.generate_secret) {
    const generated = generateSecret()
    return { value: generated, generated }
  }
  return { value: input.secret === '' ? undefined : input.secret }
}

function applyAuth(deps: Deps, row: WebhooksTable, auth: StoredAuth): Pick<WebhooksTable, 'auth_type' | 'auth_header_name' | 'auth_enc'> {
  return { auth_type: auth.type, auth_header_name: auth.headerName, auth_enc: sealAuth(deps.secrets, row.id, auth.creds) }
}

/**
 * What the audit log says of a subscription: its events, boards, host and whether it signs or authenticates, never the
 * secret, the credentials, the static headers' values or the URL's path and query (which may carry a token).
 */
const webhookDetails = (row: WebhooksTable, boards: readonly string[]) => ({
  events: fromJsonColumn(StringList, row.events),
  boards: row.all_boards ? 'all' : boards,
  host: hostOf(row.url),
  method: row.method,
  has_secret: row.secret_enc !== null,
  auth_type: row.auth_type,
  active: row.active === 1,
})
const hostOf = (url: string): string | null => {
  try {
    return new URL(url).host
  } catch {
    return null
  }
}

export async function createWebhook(deps: Deps, actor: Actor, input: CreateWebhookInput) {
  await checkInput(deps, input)
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const boards = [...new Set(input.boards ?? [])]
    const auth = mergeAuth({ type: 'none', headerName: null, creds: {} }, input.auth ?? undefined)
    const details = [...(await boardProblems(q, actor.user, boards)), ...(Array.isArray(auth) ? auth : [])]
    if (details.length || Array.isArray(auth)) throw invalid(details)
    const at = isoAt(deps.clock.now())
    const row: WebhooksTable = {
      id: newId(),
      name: input.name,
      url: input.url,
      method: input.method ?? 'POST',
      events: JSON.stringify([...new Set(input.events)]),
      secret_enc: null,
      auth_type: 'none',
      auth_enc: null,
      auth_header_name: null,
      headers: JSON.stringify(input.headers ?? {}),
      active: input.active === false ? 0 : 1,
      all_boards: boards.length === 0 ? 1 : 0,
      created_by: actor.user.id,
      last_status_code: null,
      last_outcome: null,
      last_at: null,
      created_at: at,
      updated_at: at,
      paused_reason: null,
      previous_secret_enc: null,
      previous_secret_until: null,
      failures: 0,
      failing_since: null,
    }
    const secret = nextSecret(input)
    if (secret.value) row.secret_enc = sealSecret(deps.secrets, row.id, secret.value)
    Object.assign(row, applyAuth(deps, row, auth))
    await insertWebhook(q, row)
    await setWebhookBoards(q, row.id, boards)
    await audit(deps, tx, actor, 'webhook.created', row, { details: webhookDetails(row, boards) })
    return { webhook: (await webhookViews(q, [row], deps.clock.now()))[0], secret: secret.generated }
  })
}

export async function updateWebhook(deps: Deps, actor: Actor, id: string, input: WebhookInput) {
  await visibleWebhook(deps.db.q, actor, id)
  await checkInput(deps, input)
  return deps.db.tx(async (tx) => {
    const { q } = tx
    // Read again inside the transaction: the row may have changed while DNS was being checked.
    const row = await visibleWebhook(q, actor, id)
    const set: Partial<WebhooksTable> = {}
    const details: ErrorDetail[] = []
    if (input.boards !== undefined) {
      // Boards are judged for the creator, whose access the deliveries carry, even when an admin edits.
      const creator = (await getUser(q, row.created_by))!
      details.push(...(await boardProblems(q, creator, [...new Set(input.boards)])))
    }
    const headers = fromJsonColumn(StringMap, row.headers)
    details.push(...reentryProblems({ url: row.url, hasSecret: row.secret_enc !== null, authType: row.auth_type, headers }, input))
    if (input.auth !== undefined) {
      // Decrypted only when the edit touches the credentials.
      const stored: StoredAuth = { type: row.auth_type, headerName: row.auth_header_name, creds: openAuth(deps.secrets, row) }
      const auth = mergeAuth(stored, input.auth)
      if (Array.isArray(auth)) details.push(...auth)
      else Object.assign(set, applyAuth(deps, row, auth))
    }
    if (details.length) throw invalid(details)
    if (input.name !== undefined) set.name = input.name
    if (input.url !== undefined) set.url = input.url
    if (input.method !== undefined) set.method = input.method
    if (input.events !== undefined) set.events = JSON.stringify([...new Set(input.events)])
    if (input.headers !== undefined) set.headers = JSON.stringify(input.headers)
    // Set by a person: taskd's reason for a pause no longer holds, and its failures count again from none.
    if (input.active !== undefined) Object.assign(set, { active: input.active ? 1 : 0, paused_reason: null, failures: 0, failing_since: null })
    if (input.boards !== undefined) set.all_boards = input.boards.length === 0 ? 1 : 0
    const secret = nextSecret(input)
    // A secret set (or cleared) here replaces the stored one at once: a rotation's overlap ends with it.
    if (secret.value !== undefined)
      Object.assign(set, {
        secret_enc: secret.value === null ? null : sealSecret(deps.secrets, row.id, secret.value),
        previous_secret_enc: null,
        previous_secret_until: null,
      })
    await updateWebhookRow(q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    if (input.boards !== undefined) await setWebhookBoards(q, id, [...new Set(input.boards)])
    const now = (await getWebhook(q, id))!
    // Which fields the edit sent, by name (a credential's name, never its value).
    const changed = Object.keys(input).filter((k) => input[k as keyof WebhookInput] !== undefined)
    await audit(deps, tx, actor, 'webhook.updated', now, {
      details: { changed, ...(row.paused_reason && input.active !== undefined ? { was_paused: row.paused_reason } : {}), active: now.active === 1 },
    })
    return { webhook: (await webhookViews(q, [now], deps.clock.now()))[0], secret: secret.generated }
  })
}

/**
 * Rotation without downtime: a generated secret (answered this once) signs from now on, and the one before it keeps
 * signing `webhook-signature` beside it for `overlap_hours`, so the receiver can move to the new one meanwhile.
 * X-Service-Signature and X-Webhook-Signature use the new secret at once. A rotation during an overlap ends that
 * overlap: only the secret it replaces is kept. 409 when the subscription has no secret. Nothing is emitted (editing
 * a subscription never was).
 */
export async function rotateWebhookSecret(deps: Deps, actor: Actor, id: string, input: RotateWebhookSecretInput) {
  const secret = generateSecret()
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const row = await visibleWebhook(q, actor, id)
    if (row.secret_enc === null) throw conflict('The subscription has no secret to rotate; give it one with PATCH { "generate_secret": true }.')
    const now = deps.clock.now()
    const overlap = input.overlap_hours > 0
    const set = {
      secret_enc: sealSecret(deps.secrets, row.id, secret),
      // The sealed secret moves as it is: it stays bound to this subscription.
      previous_secret_enc: overlap ? row.secret_enc : null,
      previous_secret_until: overlap ? isoAt(now + input.overlap_hours * 3_600_000) : null,
      updated_at: isoAt(now),
    }
    await updateWebhookRow(q, id, set)
    // What changed, never a secret: the overlap's end, when the old secret still signs.
    await audit(deps, tx, actor, 'webhook.secret_rotated', row, { details: { previous_until: set.previous_secret_until } })
    return { webhook: (await webhookViews(q, [{ ...row, ...set }], now))[0], secret }
  })
}

/** The housekeeping pass: secrets whose rotation overlap has ended are forgotten (deliveries already stopped using them). */
export const forgetRotatedWebhookSecrets = (deps: Deps): Promise<void> => deps.db.tx(({ q }) => forgetPreviousSecrets(q, isoAt(deps.clock.now())))

export function deleteWebhook(deps: Deps, actor: Actor, id: string): Promise<void> {
  // Pending deliveries and logs go with it (ON DELETE CASCADE); an attempt in flight finds the row gone and records nothing.
  return deps.db.tx(async (tx) => {
    const row = await visibleWebhook(tx.q, actor, id)
    await deleteWebhookRow(tx.q, id)
    await audit(deps, tx, actor, 'webhook.deleted', row, { details: { host: hostOf(row.url) } })
  })
}
