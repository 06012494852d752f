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

/** Headers for signed calls to runners and gateways. The timestamp is inside the MAC so a
 *  receiver can reject replays of an old request. */
export function signedCallHeaders(secret: string, rawBody: RawBody, nowSeconds: number): { 'X-Webhook-Timestamp': string; 'X-Webhook-Signature-V2': string } {
  const ts = String(Math.floor(nowSeconds))
  const mac = createHmac('sha256', secret).update(`${ts}.`).update(rawBody).digest('hex')
  return { 'X-Webhook-Timestamp': ts, 'X-Webhook-Signature-V2': mac }
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
