// Outgoing webhook subscriptions: create, read, update, delete, with write-only secrets and who-may-see rules.
import { isoAt } from '../clock.js'
import { secretsOf } from '../crypto.js'
import type { Sql } from '../db/sql.js'
import type { WebhooksTable } from '../db/types.js'
import { newId } from '../ids.js'
import { notFound, unprocessable, type ErrorDetail } from '../http/errors.js'
import { getUser, getUsers } from '../store/users.js'
import { redactStaticHeaders } from '../webhooks/headers.js'
import { boardsOfWebhooks, deleteWebhookRow, getWebhook, insertWebhook, setWebhookBoards, updateWebhookRow } from '../store/webhooks.js'
import { openAuth, sealAuth, sealSecret, type AuthType } from '../webhooks/credentials.js'
import { generateSecret } from '../webhooks/signing.js'
import { type Actor, type Deps, isAdmin } from './context.js'
import { boardProblems, eventProblems, headerProblems, mergeAuth, urlProblems, type AuthInput, type StoredAuth } from './webhook-rules.js'

export type Method = WebhooksTable['method']

export interface WebhookInput {
  name?: string; url?: string; method?: Method; events?: string[]; boards?: string[]
  secret?: string | null; generate_secret?: boolean; auth?: AuthInput | null; headers?: Record<string, string>; active?: boolean
}

export interface WebhookView {
  id: string; name: string; url: string; method: Method; events: string[]; boards: string[]; headers: Record<string, string>
  active: boolean; has_secret: boolean; auth: { type: AuthType; header_name?: string }; created_by: { id: string; name: string }
  last_delivery: { status_code: number | null; outcome: string; at: string } | null; created: string; updated: string
}

/** Never carries the secret or credentials: only whether they exist. */
export function webhookViews(sql: Sql, rows: WebhooksTable[]): WebhookView[] {
  const boards = boardsOfWebhooks(sql, rows.map((r) => r.id))
  const users = new Map(getUsers(sql, rows.map((r) => r.created_by)).map((u) => [u.id, u.name]))
  return rows.map((r) => ({
    id: r.id, name: r.name, url: r.url, method: r.method, events: JSON.parse(r.events) as string[], boards: boards.get(r.id) ?? [],
    headers: redactStaticHeaders(JSON.parse(r.headers) as Record<string, string>), active: r.active === 1, has_secret: r.secret_enc !== null,
    auth: r.auth_type === 'header' ? { type: r.auth_type, header_name: r.auth_header_name ?? '' } : { type: r.auth_type },
    created_by: { id: r.created_by, name: users.get(r.created_by) ?? '' },
    last_delivery: r.last_outcome && r.last_at ? { status_code: r.last_status_code, outcome: r.last_outcome, at: r.last_at } : null,
    created: r.created_at, updated: r.updated_at,
  }))
}

/** Owners and admins see every subscription, everyone else only their own; anything else is a 404. */
export function visibleWebhook(deps: Deps, actor: Actor, id: string): WebhooksTable {
  const row = getWebhook(deps.sql, id)
  if (!row || (!isAdmin(actor) && row.created_by !== actor.user.id)) throw notFound('webhook')
  return row
}

export const getWebhookFor = (deps: Deps, actor: Actor, id: string): WebhookView => webhookViews(deps.sql, [visibleWebhook(deps, actor, id)])[0]

const invalid = (details: ErrorDetail[]) => unprocessable('The webhook is not valid.', details)

/** Checks that need no database (URL and DNS among them) run before the transaction, so it stays short. */
async function checkInput(deps: Deps, input: WebhookInput): Promise<void> {
  const details: ErrorDetail[] = []
  if (input.url !== undefined) details.push(...await urlProblems(input.url, deps.config.allowPrivateTargets))
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
  const hasCreds = Object.keys(auth.creds).length > 0
  return { auth_type: auth.type, auth_header_name: auth.headerName, auth_enc: hasCreds ? sealAuth(secretsOf(deps), row.id, auth.creds) : null }
}

export async function createWebhook(deps: Deps, actor: Actor, input: WebhookInput & { name: string; url: string; events: string[] }) {
  await checkInput(deps, input)
  const { sql } = deps
  return sql.tx(() => {
    const boards = [...new Set(input.boards ?? [])]
    const auth = mergeAuth({ type: 'none', headerName: null, creds: {} }, input.auth ?? undefined)
    const details = [...boardProblems(sql, actor.user, boards), ...(Array.isArray(auth) ? auth : [])]
    if (details.length || Array.isArray(auth)) throw invalid(details)
    const at = isoAt(deps.clock.now())
    const row: WebhooksTable = {
      id: newId(), name: input.name, url: input.url, method: input.method ?? 'POST', events: JSON.stringify([...new Set(input.events)]),
      secret_enc: null, auth_type: 'none', auth_enc: null, auth_header_name: null, headers: JSON.stringify(input.headers ?? {}),
      active: input.active === false ? 0 : 1, all_boards: boards.length === 0 ? 1 : 0, created_by: actor.user.id, last_status_code: null, last_outcome: null, last_at: null,
      created_at: at, updated_at: at,
    }
    const secret = nextSecret(input)
    if (secret.value) row.secret_enc = sealSecret(secretsOf(deps), row.id, secret.value)
    Object.assign(row, applyAuth(deps, row, auth))
    insertWebhook(sql, row)
    setWebhookBoards(sql, row.id, boards)
    return { webhook: webhookViews(sql, [row])[0], secret: secret.generated }
  })
}

export async function updateWebhook(deps: Deps, actor: Actor, id: string, input: WebhookInput) {
  visibleWebhook(deps, actor, id)
  await checkInput(deps, input)
  const { sql } = deps
  return sql.tx(() => {
    // Read again inside the transaction: the row may have changed while DNS was being checked.
    const row = visibleWebhook(deps, actor, id)
    const set: Partial<WebhooksTable> = {}
    const details: ErrorDetail[] = []
    if (input.boards !== undefined) {
      // Boards are judged for the creator, whose access the deliveries carry, even when an admin edits.
      const creator = getUser(sql, row.created_by)!
      details.push(...boardProblems(sql, creator, [...new Set(input.boards)]))
    }
    if (input.auth !== undefined) {
      const stored: StoredAuth = { type: row.auth_type, headerName: row.auth_header_name, creds: openAuth(secretsOf(deps), row) }
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
    if (input.active !== undefined) set.active = input.active ? 1 : 0
    if (input.boards !== undefined) set.all_boards = input.boards.length === 0 ? 1 : 0
    const secret = nextSecret(input)
    if (secret.value !== undefined) set.secret_enc = secret.value === null ? null : sealSecret(secretsOf(deps), row.id, secret.value)
    updateWebhookRow(sql, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    if (input.boards !== undefined) setWebhookBoards(sql, id, [...new Set(input.boards)])
    return { webhook: webhookViews(sql, [getWebhook(sql, id)!])[0], secret: secret.generated }
  })
}

export function deleteWebhook(deps: Deps, actor: Actor, id: string): void {
  // Pending deliveries and logs go with it (ON DELETE CASCADE); an attempt in flight finds the row gone and records nothing.
  deps.sql.tx(() => {
    visibleWebhook(deps, actor, id)
    deleteWebhookRow(deps.sql, id)
  })
}
