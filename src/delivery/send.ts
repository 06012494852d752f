// Performs one outgoing HTTP call (a webhook attempt, an automation's http_request step) through an SSRF-guarded undici
// Agent and reports its outcome; never throws.
import { isIP, type Socket } from 'node:net'
import { StringDecoder } from 'node:string_decoder'
import type * as Undici from 'undici'
import { TargetRefusedError, checkWebhookUrl, createPinnedLookup, isPrivateAddress, type LookupAll, requestTarget } from './url-safety.js'

export const RESPONSE_EXCERPT_BYTES = 1024

/**
 * undici, loaded by the first outgoing call: the main process of a server whose webhooks go out from the sending
 * thread, and that runs no automation's http_request step and sends no agent kickoff, never holds it (some 2.5 MB of
 * heap; bench/README.md). A load that failed is tried again by the next call.
 */
let undici: Promise<typeof Undici> | undefined
/** Also called by the sending thread as it starts, so that its first batch does not wait for it. */
export const loadUndici = () =>
  (undici ??= import('undici').catch((err: unknown) => {
    undici = undefined
    throw err
  }))

export type SendOutcome = 'ok' | 'redirect' | 'client_error' | 'server_error' | 'timeout' | 'network_error' | 'refused_target'

export interface SendRequest {
  url: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  headers: Record<string, string>
  body?: string | Buffer
  timeoutMs: number
  /** How much of the answer to keep (default RESPONSE_EXCERPT_BYTES); the rest is never read. */
  keepBytes?: number
  allowPrivate: boolean
  /** Overrides the shared agent (tests inject one with a fake resolver). */
  dispatcher?: Undici.Dispatcher
}

export interface SendResult {
  statusCode: number | null
  outcome: SendOutcome
  error?: string
  responseExcerpt: string
  responseHeaders: Record<string, string>
  durationMs: number
}

/** An Agent whose every connection passes the address policy: names resolve through the pinned
 *  lookup (the checked address is the one dialled), IP literals are checked here because
 *  net.connect skips `lookup` for them, and the connected peer address is checked once more. */
export async function createDeliveryAgent(opts: { allowPrivate: boolean; lookup?: LookupAll; connectTimeoutMs?: number }): Promise<Undici.Agent> {
  const { Agent, buildConnector } = await loadUndici()
  const base = buildConnector({
    timeout: opts.connectTimeoutMs ?? 10_000,
    lookup: createPinnedLookup({ allowPrivate: opts.allowPrivate, lookup: opts.lookup }),
  })
  const connect: Undici.buildConnector.connector = (options, callback) => {
    const host = options.hostname.startsWith('[') ? options.hostname.slice(1, -1) : options.hostname
    if (!opts.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
      callback(new TargetRefusedError(`${host} is a private or reserved address`), null)
      return
    }
    base(options, (...args) => {
      const [err, socket] = args
      if (err !== null) return callback(err, null)
      const peer = (socket as Socket).remoteAddress
      // Defence in depth: whatever path produced this socket, never talk to a private peer.
      if (!opts.allowPrivate && (peer === undefined || isPrivateAddress(peer))) {
        socket.destroy()
        return callback(new TargetRefusedError(`connected address ${peer ?? '(unknown)'} is a private or reserved address`), null)
      }
      callback(null, socket)
    })
  }
  return new Agent({ connect })
}

// Created once and reused so keep-alive connections to the same receivers survive between deliveries.
const sharedAgents = new Map<boolean, Promise<Undici.Agent>>()

export function deliveryAgent(allowPrivate: boolean): Promise<Undici.Agent> {
  let agent = sharedAgents.get(allowPrivate)
  if (!agent) {
    agent = createDeliveryAgent({ allowPrivate })
    sharedAgents.set(allowPrivate, agent)
  }
  return agent
}

/** Closes the shared agents (server shutdown, end of tests) so idle sockets do not hold the process open. */
export async function closeDeliveryAgents(): Promise<void> {
  const agents = [...sharedAgents.values()]
  sharedAgents.clear()
  await Promise.all(agents.map(async (a) => (await a).close()))
}

function outcomeForStatus(status: number): SendOutcome {
  if (status >= 200 && status < 300) return 'ok'
  if (status >= 300 && status < 400) return 'redirect'
  if (status >= 400 && status < 500) return 'client_error'
  return status >= 500 ? 'server_error' : 'network_error'
}

function hasCode(err: unknown, codes: readonly string[], depth = 0): boolean {
  if (err === null || typeof err !== 'object' || depth > 5) return false
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown }
  if (typeof e.code === 'string' && codes.includes(e.code)) return true
  if (Array.isArray(e.errors) && e.errors.some((x) => hasCode(x, codes, depth + 1))) return true
  return hasCode(e.cause, codes, depth + 1)
}

function refusalMessage(err: unknown, depth = 0): string | undefined {
  if (err instanceof TargetRefusedError) return err.message
  if (err === null || typeof err !== 'object' || depth > 5) return undefined
  const e = err as { cause?: unknown; errors?: unknown }
  for (const inner of Array.isArray(e.errors) ? e.errors : []) {
    const m = refusalMessage(inner, depth + 1)
    if (m) return m
  }
  return refusalMessage(e.cause, depth + 1)
}

const TIMEOUT_CODES = ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT'] as const

/** Reads at most `limit` bytes and drops the rest: a receiver must not make us buffer a huge answer. */
async function readExcerpt(body: Undici.Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  body.on('error', () => {}) // errors after we stop reading are of no interest
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer)
      size += (chunk as Buffer).length
      if (size >= limit) break // leaving the loop destroys the stream
    }
  } catch {
    // A body cut short still leaves whatever arrived as the excerpt.
  } finally {
    if (!body.destroyed) body.destroy()
  }
  const bytes = Buffer.concat(chunks).subarray(0, limit)
  // StringDecoder.write holds back a character split at the cut instead of emitting U+FFFD.
  let text = new StringDecoder('utf8').write(bytes)
  while (Buffer.byteLength(text) > limit) text = text.slice(0, -1)
  return text
}

export async function sendWebhook(req: SendRequest): Promise<SendResult> {
  let started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const checked = checkWebhookUrl(req.url)
  const failed = (outcome: SendOutcome, error: string): SendResult => ({
    statusCode: null,
    outcome,
    error,
    responseExcerpt: '',
    responseHeaders: {},
    durationMs: elapsed(),
  })
  if (!checked.ok) return failed('refused_target', checked.reason)
  // The HTTP client loads with a process's first call: not part of the attempt's time, nor of its deadline.
  let dispatcher: Undici.Dispatcher
  try {
    await loadUndici()
    dispatcher = req.dispatcher ?? (await deliveryAgent(req.allowPrivate))
  } catch (err) {
    return failed('network_error', `the HTTP client did not load: ${err instanceof Error ? err.message : String(err)}`)
  }
  started = performance.now()

  // One deadline for the whole attempt (connect, headers and body), as the per-attempt timeout promises.
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort(new Error(`timed out after ${req.timeoutMs} ms`))
  }, req.timeoutMs)
  try {
    // Origin and path apart, so that the path goes out as requestTarget wrote it (undici's request(url) would parse
    // the URL again and resolve an encoded `..`).
    const res = await dispatcher.request({
      origin: checked.url.origin,
      path: requestTarget(req.url, checked.url),
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: controller.signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      // undici 7 never follows redirects without the redirect interceptor: a 3xx is reported, not chased.
    })
    const responseExcerpt = await readExcerpt(res.body, req.keepBytes ?? RESPONSE_EXCERPT_BYTES)
    const responseHeaders = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]))
    return { statusCode: res.statusCode, outcome: outcomeForStatus(res.statusCode), responseExcerpt, responseHeaders, durationMs: elapsed() }
  } catch (err) {
    const refused = refusalMessage(err)
    if (refused !== undefined) return failed('refused_target', refused)
    if (timedOut || hasCode(err, TIMEOUT_CODES)) return failed('timeout', `timed out after ${req.timeoutMs} ms`)
    const e = err as { code?: string; message?: string }
    const error = [e.code, e.message].filter(Boolean).join(': ') || String(err)
    return failed('network_error', error)
  } finally {
    clearTimeout(timer)
  }
}
