// Save-time rules of outgoing subscriptions: URL, events, static headers, authentication (with write-only merge) and boards.
import { isAdminRole } from '../../access/roles.js'
import { visibleBoardIds } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { UsersTable } from '../../db/types.js'
import { isAvailable } from '../../events/catalog.js'
import { expandEventSelectors } from '../../events/names.js'
import type { ErrorDetail } from '../../errors.js'
import type { AuthCredentials, AuthType } from '../../webhooks/credentials.js'
import { headerNameProblem, headerValueProblem, sensitiveStaticValues } from '../../webhooks/headers.js'
import { checkTargetAtSave, checkWebhookUrl } from '../../webhooks/url-safety.js'

export async function urlProblems(url: string, allowPrivate: boolean): Promise<ErrorDetail[]> {
  const syntax = checkWebhookUrl(url)
  if (!syntax.ok) return [{ path: 'url', message: `${syntax.reason}.` }]
  const target = await checkTargetAtSave(url, { allowPrivate })
  if (target.ok) return []
  // The hint about private targets only helps when that was the reason, not for a name that does not resolve.
  const hint = /does not resolve/.test(target.reason)
    ? ''
    : '; private network targets are refused unless the instance allows them (TASKD_ALLOW_PRIVATE_TARGETS)'
  return [{ path: 'url', message: `${target.reason}${hint}.` }]
}

/**
 * Keeps the selectors as written (so `card.*` also covers task events added later), after checking each one. A list
 * that selects only events no code emits yet would never receive anything, so it is refused too.
 */
export function eventProblems(events: readonly string[]): ErrorDetail[] {
  const details: ErrorDetail[] = []
  events.forEach((sel, i) => {
    if (typeof expandEventSelectors([sel]) === 'string') {
      details.push({ path: `events.${i}`, message: `Unknown event "${sel}"; use an event name, "<family>.*" or "*" (see GET /v1/webhooks/events).` })
    }
  })
  const selected = expandEventSelectors([...events])
  if (details.length === 0 && typeof selected !== 'string' && selected.size > 0 && ![...selected].some(isAvailable)) {
    details.push({
      path: 'events',
      message: 'These events are not emitted by this taskd yet (available: false in GET /v1/webhooks/events); pick at least one available event.',
    })
  }
  return details
}

export function headerProblems(headers: Record<string, string>): ErrorDetail[] {
  const details: ErrorDetail[] = []
  const seen = new Set<string>()
  const entries = Object.entries(headers)
  if (entries.length > 50) details.push({ path: 'headers', message: 'At most 50 static headers.' })
  for (const [name, value] of entries) {
    const problem = headerNameProblem(name) ?? headerValueProblem(value)
    if (problem) details.push({ path: `headers.${name}`, message: problem })
    if (seen.has(name.toLowerCase())) details.push({ path: `headers.${name}`, message: 'The same header name appears twice (names are case-insensitive).' })
    seen.add(name.toLowerCase())
  }
  return details
}

const MOVED = 'The URL changes'

/**
 * Write-only values stay with the URL they were given for: a subscription pointed at another URL (another path on a
 * shared receiver host counts too) must be given its secret, credentials and credential-carrying static headers again,
 * or drop them. Otherwise anyone allowed to edit it could send someone else's stored token to a receiver of their own.
 * Needs no decryption: which credentials a type uses is enough.
 */
export function reentryProblems(
  stored: { url: string; hasSecret: boolean; authType: AuthType; headers: Record<string, string> },
  input: { url?: string; secret?: string | null; generate_secret?: boolean; auth?: AuthInput | null; headers?: Record<string, string> },
): ErrorDetail[] {
  if (input.url === undefined || input.url === stored.url) return []
  const details: ErrorDetail[] = []
  if (stored.hasSecret && (input.secret === undefined || input.secret === '') && !input.generate_secret) {
    details.push({ path: 'secret', message: `${MOVED}: send the secret again, null to stop signing, or generate_secret: true.` })
  }
  const dropsAuth = input.auth === null || input.auth?.type === 'none'
  const sameType = (input.auth?.type ?? stored.authType) === stored.authType
  if (stored.authType !== 'none' && !dropsAuth && sameType) {
    for (const f of REQUIRED[stored.authType]) {
      const v = input.auth?.[f]
      if (v === undefined || v === '') details.push({ path: `auth.${f}`, message: `${MOVED}: enter ${f} again, or send auth: { type: "none" }.` })
    }
  }
  if (input.headers === undefined && sensitiveStaticValues(stored.headers).length > 0) {
    details.push({ path: 'headers', message: `${MOVED}: send the headers again (some carry credentials), or {} to drop them.` })
  }
  return details
}

export interface AuthInput {
  type?: AuthType
  token?: string | null
  username?: string | null
  password?: string | null
  header_name?: string | null
  header_value?: string | null
}
export interface StoredAuth {
  type: AuthType
  headerName: string | null
  creds: AuthCredentials
}

const CRED_FIELDS = ['token', 'username', 'password', 'header_value'] as const
const REQUIRED: Record<AuthType, readonly (keyof AuthCredentials)[]> = { none: [], bearer: ['token'], basic: ['username'], header: ['header_value'] }

/**
 * API-DECISIONS §7: a blank credential keeps the stored one, null clears it. Stored credentials only carry
 * over while the type stays the same: a bearer token must never turn into a basic password.
 */
export function mergeAuth(stored: StoredAuth, input: AuthInput | null | undefined): StoredAuth | ErrorDetail[] {
  if (input === undefined) return stored
  if (input === null) return { type: 'none', headerName: null, creds: {} }
  const type = input.type ?? stored.type
  const base = type === stored.type ? stored.creds : {}
  const creds: AuthCredentials = {}
  for (const f of CRED_FIELDS) {
    const v = input[f]
    const kept = v === undefined || v === '' ? base[f] : v === null ? undefined : v
    if (kept !== undefined) creds[f] = kept
  }
  const keepName = input.header_name === undefined || input.header_name === ''
  const headerName = type !== 'header' ? null : keepName ? (stored.type === 'header' ? stored.headerName : null) : (input.header_name ?? null)
  const details: ErrorDetail[] = []
  if (type === 'header') {
    const problem = headerName ? headerNameProblem(headerName) : 'Header authentication needs header_name.'
    if (problem) details.push({ path: 'auth.header_name', message: problem })
  }
  for (const f of REQUIRED[type])
    if (!creds[f]) details.push({ path: `auth.${f}`, message: `${type} authentication needs ${f}; send auth: { type: "none" } to remove authentication.` })
  // A token or header value goes out verbatim; a basic username and password go out base64-encoded (as UTF-8), so any
  // text can be sent there, but control characters are refused alike.
  for (const f of CRED_FIELDS) {
    const v = creds[f]
    if (v === undefined) continue
    const problem =
      f === 'username' || f === 'password' ? (/[\x00-\x1f\x7f]/.test(v) ? 'Must not contain control characters.' : undefined) : headerValueProblem(v)
    if (problem) details.push({ path: `auth.${f}`, message: problem })
  }
  if (type === 'basic' && creds.username?.includes(':')) details.push({ path: 'auth.username', message: 'A basic-auth username cannot contain ":".' })
  if (details.length) return details
  // Only the fields the type uses are kept, so switching type never leaves an orphaned secret behind.
  const used: AuthCredentials = {}
  for (const f of type === 'basic' ? (['username', 'password'] as const) : REQUIRED[type]) if (creds[f] !== undefined) used[f] = creds[f]
  return { type, headerName, creds: used }
}

/** SPEC "Who may subscribe": owners and admins may name any boards or none (whole workspace); anyone else must
 *  name at least one board they belong to. The same 422 message covers a missing board and someone else's board. */
export async function boardProblems(q: Q, creator: UsersTable, boards: readonly string[]): Promise<ErrorDetail[]> {
  if (boards.length === 0) {
    return isAdminRole(creator.role)
      ? []
      : [{ path: 'boards', message: 'Members must name at least one board they belong to; an empty list (whole workspace) is for owners and admins.' }]
  }
  const known = new Set(
    (
      await q
        .selectFrom('boards')
        .select('id')
        .where('id', 'in', [...new Set(boards)])
        .where('id', 'in', visibleBoardIds(q, creator))
        .execute()
    ).map((r) => r.id),
  )
  const details: ErrorDetail[] = []
  boards.forEach((id, i) => {
    if (!known.has(id))
      details.push({ path: `boards.${i}`, message: isAdminRole(creator.role) ? 'No such board.' : 'No such board, or you are not a member of it.' })
  })
  return details
}
