// Delivery headers (fixed, signature, auth, static) and the rules for which static header names a subscription may set.
import { legacySignature, serviceSignature, STANDARD_HEADERS, standardHeaders } from './signing.js'

/** Names a subscription's static `headers` may not use: hop-by-hop and framing headers would corrupt the request,
 *  and the delivery's own headers are the contract receivers verify against. */
const FORBIDDEN = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
  'content-type',
  'user-agent',
  'x-service-signature',
  // Standard Webhooks: the message id, its time and its signatures are taskd's.
  ...STANDARD_HEADERS,
])
/** Every X-Webhook-* name is taskd's own (event, delivery, signature, and any it adds later). */
const RESERVED_PREFIX = 'x-webhook-'

// RFC 9110 token characters.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * Why a header name cannot be used, or undefined when it can. `contentType`: the caller chooses the body's type (an
 * automation's http_request step), so Content-Type is allowed; a subscription always sends JSON.
 */
export function headerNameProblem(name: string, opts: { contentType?: boolean } = {}): string | undefined {
  if (!TOKEN.test(name) || name.length > 100) return 'Not a valid header name.'
  const lower = name.toLowerCase()
  if (opts.contentType && lower === 'content-type') return undefined
  if (FORBIDDEN.has(lower) || lower.startsWith(RESERVED_PREFIX)) return `The header ${name} is set by taskd or by HTTP itself and cannot be configured.`
  return undefined
}

/**
 * Values travel verbatim on the wire, so CR/LF (header injection) and other control characters are refused, and so is
 * anything past Latin-1: HTTP clients (undici included) refuse such a header at send time, so every delivery would fail.
 */
export function headerValueProblem(value: string): string | undefined {
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return 'Header values must not contain control characters or line breaks.'
  if (/[^\x00-\xff]/.test(value)) return 'Header values must be Latin-1 (ISO-8859-1) text; this one has characters HTTP headers cannot carry.'
  if (value.length > 4096) return 'Header values must be at most 4096 characters.'
  return undefined
}

/** Static headers that carry credentials: allowed (first-class auth wins on a clash) but never shown back. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie'])
export const sensitiveStaticValues = (headers: Record<string, string>): string[] =>
  Object.entries(headers)
    .filter(([k]) => CREDENTIAL_HEADERS.has(k.toLowerCase()))
    .map(([, v]) => v)
export const redactStaticHeaders = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, CREDENTIAL_HEADERS.has(k.toLowerCase()) ? '[redacted]' : v]))

export interface DeliveryHeaderInput {
  event: string
  deliveryId: string
  body: string
  secret: string | null
  /** The secret before a rotation, while its overlap lasts: it signs `webhook-signature` beside the new one. */
  previousSecret: string | null
  /** The time of the attempt, in `webhook-timestamp`. */
  nowSeconds: number
  userAgent: string
  auth: Record<string, string>
  static: Record<string, string>
}

/** Fixed headers, signatures when a secret is set (X-Service-Signature and X-Webhook-Signature with the current secret
 *  only, the Standard Webhooks headers with the previous one too during a rotation's overlap), then static headers
 *  with authentication winning on a name clash; names are compared case-insensitively so a clash never sends the
 *  header twice. */
export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const out = new Map<string, [string, string]>()
  const put = (name: string, value: string) => out.set(name.toLowerCase(), [name, value])
  put('Content-Type', 'application/json')
  put('User-Agent', input.userAgent)
  put('X-Webhook-Event', input.event)
  put('X-Webhook-Delivery', input.deliveryId)
  if (input.secret !== null) {
    put('X-Service-Signature', serviceSignature(input.secret, input.body))
    put('X-Webhook-Signature', legacySignature(input.secret, input.body))
    const standard = standardHeaders({ current: input.secret, previous: input.previousSecret }, input.deliveryId, input.body, input.nowSeconds)
    for (const [name, value] of Object.entries(standard)) put(name, value)
  }
  for (const [name, value] of Object.entries(input.static)) if (headerNameProblem(name) === undefined) put(name, value)
  for (const [name, value] of Object.entries(input.auth)) put(name, value)
  return Object.fromEntries([...out.values()])
}
