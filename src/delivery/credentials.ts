// A subscription's (or incoming endpoint's) write-only credentials: the merge of an edit with what is stored, sealing at save, opening at use, and the headers they make.
import { z } from 'zod'
import type { SecretBox } from '../crypto.js'
import type { WebhooksTable } from '../db/types.js'
import type { ErrorDetail } from '../errors.js'
import { headerNameProblem, headerValueProblem } from './headers.js'
import { fromJsonColumn } from '../db/json.js'

export type AuthType = WebhooksTable['auth_type']
export const AuthCredentials = z.object({
  token: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  header_value: z.string().optional(),
})
export type AuthCredentials = z.infer<typeof AuthCredentials>

// The row id (and what kind of row) is part of the associated data, so a sealed value moved to another row will not open.
/** Whose credentials: an outgoing subscription's, or an incoming endpoint's. */
export type CredentialOwner = 'webhook' | 'incoming'
const secretContext = (id: string) => `webhook:${id}:secret`
const authContext = (id: string, owner: CredentialOwner) => `${owner}:${id}:auth`

export const sealSecret = (box: SecretBox, id: string, secret: string): string => box.seal(secret, secretContext(id))
/** Sealed credentials, or null when there are none to keep. */
export const sealAuth = (box: SecretBox, id: string, creds: AuthCredentials, owner: CredentialOwner = 'webhook'): string | null =>
  Object.keys(creds).length ? box.seal(JSON.stringify(creds), authContext(id, owner)) : null

export function openSecret(box: SecretBox, row: Pick<WebhooksTable, 'id' | 'secret_enc'>): string | null {
  return row.secret_enc === null ? null : box.open(row.secret_enc, secretContext(row.id))
}

/** The secret before the last rotation, opened only while its overlap lasts (until `previous_secret_until`); null after. */
export function openPreviousSecret(
  box: SecretBox,
  row: Pick<WebhooksTable, 'id' | 'previous_secret_enc' | 'previous_secret_until'>,
  now: number,
): string | null {
  if (row.previous_secret_enc === null || rotationEnd(row.previous_secret_until, now) === null) return null
  return box.open(row.previous_secret_enc, secretContext(row.id))
}

/**
 * When a rotation's overlap ends, while it lasts; null when there is none or it is over (the housekeeping pass
 * forgets the old secret later, so reads and signatures check the time themselves).
 */
export const rotationEnd = (until: string | null, now: number): string | null => (until !== null && Date.parse(until) > now ? until : null)

export function openAuth(box: SecretBox, row: { id: string; auth_enc: string | null }, owner: CredentialOwner = 'webhook'): AuthCredentials {
  return row.auth_enc === null ? {} : fromJsonColumn(AuthCredentials, box.open(row.auth_enc, authContext(row.id, owner)))
}

/** Headers of first-class authentication; these win over a static header of the same name. */
export function authHeaders(type: AuthType, headerName: string | null, creds: AuthCredentials): Record<string, string> {
  switch (type) {
    case 'bearer':
      return { Authorization: `Bearer ${creds.token ?? ''}` }
    case 'basic':
      return { Authorization: `Basic ${Buffer.from(`${creds.username ?? ''}:${creds.password ?? ''}`, 'utf8').toString('base64')}` }
    case 'header':
      return headerName ? { [headerName]: creds.header_value ?? '' } : {}
    default:
      return {}
  }
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
/** The credentials each type needs. */
const REQUIRED_CREDENTIALS: Record<AuthType, readonly (keyof AuthCredentials)[]> = {
  none: [],
  bearer: ['token'],
  basic: ['username'],
  header: ['header_value'],
}
/** The credentials each type keeps and sends (a basic password is optional, but stored and sent when given). */
export const USED_CREDENTIALS: Record<AuthType, readonly (keyof AuthCredentials)[]> = { ...REQUIRED_CREDENTIALS, basic: ['username', 'password'] }

/**
 * A blank credential keeps the stored one, null clears it. Stored credentials only carry
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
  for (const f of REQUIRED_CREDENTIALS[type])
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
  for (const f of USED_CREDENTIALS[type]) if (creds[f] !== undefined) used[f] = creds[f]
  return { type, headerName, creds: used }
}
