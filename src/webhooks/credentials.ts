// A subscription's write-only signing secret and delivery credentials: sealing at save, opening at delivery, and the headers they make.
import type { SecretBox } from '../crypto.js'
import type { WebhooksTable } from '../db/types.js'

export type AuthType = WebhooksTable['auth_type']
export interface AuthCredentials {
  token?: string
  username?: string
  password?: string
  header_value?: string
}

// The row id is part of the associated data, so a sealed value moved to another subscription will not open.
const secretContext = (id: string) => `webhook:${id}:secret`
const authContext = (id: string) => `webhook:${id}:auth`

export const sealSecret = (box: SecretBox, id: string, secret: string): string => box.seal(secret, secretContext(id))
export const sealAuth = (box: SecretBox, id: string, creds: AuthCredentials): string => box.seal(JSON.stringify(creds), authContext(id))

export function openSecret(box: SecretBox, row: Pick<WebhooksTable, 'id' | 'secret_enc'>): string | null {
  return row.secret_enc === null ? null : box.open(row.secret_enc, secretContext(row.id))
}

export function openAuth(box: SecretBox, row: Pick<WebhooksTable, 'id' | 'auth_enc'>): AuthCredentials {
  return row.auth_enc === null ? {} : (JSON.parse(box.open(row.auth_enc, authContext(row.id))) as AuthCredentials)
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
