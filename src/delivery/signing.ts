// Signatures on outgoing webhook deliveries and signed calls, plus secret generation and constant-time comparison.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

export type RawBody = string | Buffer

/** `X-Service-Signature`: "sha256=" + hex HMAC-SHA256 of the exact bytes sent (GitHub's format, so stock verifiers work). */
export function serviceSignature(secret: string, rawBody: RawBody): string {
  return 'sha256=' + createHmac('sha256', secret).update(rawBody).digest('hex')
}

/** `X-Webhook-Signature`: plain SHA-256 of body + secret. Weak (not an HMAC) but kept because old receivers check it. */
export function legacySignature(secret: string, rawBody: RawBody): string {
  return createHash('sha256').update(rawBody).update(secret).digest('hex')
}

/**
 * The keys a signature is made with: the current secret, and during a rotation's overlap the one before it. A
 * secret's bytes are its UTF-8 encoding (the string itself for the ASCII secrets taskd generates).
 */
export interface SigningKeys {
  current: string
  previous?: string | null
}

/** The names of the Standard Webhooks headers (standardwebhooks.com), lower case as the specification writes them. */
export const STANDARD_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const

/**
 * Standard Webhooks headers: `webhook-id`, `webhook-timestamp` (unix seconds) and `webhook-signature`, `v1,` + the
 * base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>" for each key, the current one first, space-separated (a
 * receiver accepts the message when any of them verifies, so one holding either secret passes during an overlap).
 */
export function standardHeaders(keys: SigningKeys, id: string, rawBody: RawBody, nowSeconds: number): Record<(typeof STANDARD_HEADERS)[number], string> {
  const ts = String(Math.floor(nowSeconds))
  const sign = (key: string) => 'v1,' + createHmac('sha256', key).update(`${id}.${ts}.`).update(rawBody).digest('base64')
  const signatures = [keys.current, ...(keys.previous ? [keys.previous] : [])].map(sign)
  return { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signatures.join(' ') }
}

/**
 * Headers for signed calls to runners and gateways: the V2 signature (the timestamp is inside the MAC so a receiver can
 * reject replays of an old request), made with the current secret only, and the Standard Webhooks headers beside it
 * with the same timestamp. `id` names the message, the same when it is sent again (a kickoff's id, a run's step).
 */
export function signedCallHeaders(keys: SigningKeys, id: string, rawBody: RawBody, nowSeconds: number): Record<string, string> {
  const ts = String(Math.floor(nowSeconds))
  const mac = createHmac('sha256', keys.current).update(`${ts}.`).update(rawBody).digest('hex')
  return { 'X-Webhook-Timestamp': ts, 'X-Webhook-Signature-V2': mac, ...standardHeaders(keys, id, rawBody, nowSeconds) }
}

/** A fresh signing secret: 32 random bytes (256 bits), base64url, with a recognisable prefix. */
export function generateSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64url')
}

/** Constant-time string equality. Both sides are hashed first so the comparison takes the same time
 *  whatever the lengths, and timingSafeEqual never throws on a length mismatch. */
export function timingSafeEqualStr(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest()
  const hb = createHash('sha256').update(b, 'utf8').digest()
  return timingSafeEqual(ha, hb) && a.length === b.length
}
