// Save-time rules of outgoing subscriptions: URL, events, static headers, re-entered credentials and boards.
import { isAdminRole } from '../../access/roles.js'
import { boardsSeenAmong } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { UsersTable } from '../../db/types.js'
import { isAvailable } from '../../events/names.js'
import { expandEventSelectors } from '../../events/names.js'
import type { ErrorDetail } from '../../errors.js'
import { type AuthInput, type AuthType, USED_CREDENTIALS } from '../../delivery/credentials.js'
import { headerNameProblem, headerValueProblem, sensitiveStaticValues } from '../../delivery/headers.js'
import { checkTargetAtSave, checkWebhookUrl } from '../../delivery/url-safety.js'

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
    // Every credential the type sends, optional ones too: a kept basic password must not follow the URL elsewhere.
    for (const f of USED_CREDENTIALS[stored.authType]) {
      const v = input.auth?.[f]
      if (v === undefined || v === '')
        details.push({ path: `auth.${f}`, message: `${MOVED}: enter ${f} again${f === 'password' ? ' (null for none)' : ''}, or send auth: { type: "none" }.` })
    }
  }
  if (input.headers === undefined && sensitiveStaticValues(stored.headers).length > 0) {
    details.push({ path: 'headers', message: `${MOVED}: send the headers again (some carry credentials), or {} to drop them.` })
  }
  return details
}

/** Who may subscribe: owners and admins may name any boards or none (whole workspace); anyone else must
 *  name at least one board they belong to. The same 422 message covers a missing board and someone else's board. */
export async function boardProblems(q: Q, creator: UsersTable, boards: readonly string[]): Promise<ErrorDetail[]> {
  if (boards.length === 0) {
    return isAdminRole(creator.role)
      ? []
      : [{ path: 'boards', message: 'Members must name at least one board they belong to; an empty list (whole workspace) is for owners and admins.' }]
  }
  const known = await boardsSeenAmong(q, creator, boards)
  const details: ErrorDetail[] = []
  boards.forEach((id, i) => {
    if (!known.has(id))
      details.push({ path: `boards.${i}`, message: isAdminRole(creator.role) ? 'No such board.' : 'No such board, or you are not a member of it.' })
  })
  return details
}
