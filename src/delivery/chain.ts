// The causal chain on calls taskd makes: an automation's http_request step and an agent's auto_start call carry the
// automations that led to them in a header tagged with a key only taskd holds, so a request that comes back to one of
// taskd's incoming endpoints (a run calling its own endpoint) starts none of them again. A header taskd did not make,
// or one older than an hour, counts as none.
import type { SecretBox } from '../crypto.js'
import { timingSafeEqualStr } from './signing.js'

export const CHAIN_HEADER = 'X-Taskd-Chain'
const PURPOSE = 'automation chain'
const MAX_AGE_S = 3600
/** More than any chain taskd lets grow (the runner's depth cap), so a header never grows without bound. */
const MAX_IDS = 64

/** The header value for a chain: `v1.<base64url JSON { c, t }>.<tag>`; undefined for an empty chain. */
export function chainHeaderValue(secrets: SecretBox, chain: readonly string[], nowMs: number): string | undefined {
  if (chain.length === 0) return undefined
  const payload = Buffer.from(JSON.stringify({ c: chain, t: Math.floor(nowMs / 1000) })).toString('base64url')
  return `v1.${payload}.${secrets.mac(payload, PURPOSE)}`
}

/** The chain a request carries, when taskd made its header within the last hour; else none. */
export function chainFromHeader(secrets: SecretBox, value: string | string[] | undefined, nowMs: number): string[] {
  if (typeof value !== 'string' || value.length > 8192) return []
  const [version, payload, tag] = value.split('.')
  if (version !== 'v1' || !payload || !tag || !timingSafeEqualStr(secrets.mac(payload, PURPOSE), tag)) return []
  try {
    const { c, t } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { c?: unknown; t?: unknown }
    if (typeof t !== 'number' || Math.abs(nowMs / 1000 - t) > MAX_AGE_S) return []
    if (!Array.isArray(c) || c.length > MAX_IDS || !c.every((id) => typeof id === 'string')) return []
    return c as string[]
  } catch {
    return []
  }
}
