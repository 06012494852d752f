// The receiving side of a git connection, POST /v1/git/connections/<id>/hooks. Public (no token): the host proves the
// hook with its own scheme over the raw body, checked in constant time: GitHub `X-Hub-Signature-256: sha256=<hex HMAC
// SHA-256>`, Gitea `X-Gitea-Signature: <hex HMAC SHA-256>`, GitLab `X-Gitlab-Token: <the secret>`. Judged in this
// order: method 405, unknown connection 404, more than RATE_LIMIT a minute from the sender 429, body past 1 MB 413
// (read as incoming endpoints read theirs), signature 401 (the reason goes to the request log only), event header or
// payload 400 (a body neither JSON nor GitHub's form 415), else 202 once applied (also for an event taskd does not act on).
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Request, RequestHandler, Response } from 'express'
import type { Deps } from '../../deps.js'
import { timingSafeEqualStr } from '../../delivery/signing.js'
import { rateKey, senderOf, SlidingWindows } from '../../http/rate-limit.js'
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../json-depth.js'
import { Aborted, BODY_LIMIT, closeAfterAnswer, readBody } from '../incoming/receive.js'
import { EVENT_HEADER, HookPayloadError, readHook } from './hooks.js'
import { ingestHook } from './ingest.js'
import type { GitProvider } from './schema.js'
import { hookConnection } from './service.js'

/** Hooks a minute per connection and sender (a busy repository's pushes, pull requests and CI runs fit easily). */
export const RATE_LIMIT = 600

const header = (req: Request, name: string): string | undefined => {
  const v = req.headers[name]
  return typeof v === 'string' ? v : undefined
}

const hmacOf = (secret: string, raw: Buffer): Buffer => createHmac('sha256', secret).update(raw).digest()

/** Whether `sent` is the hex HMAC-SHA256 of the body under the secret, in constant time. */
function hexMatches(sent: string, secret: string, raw: Buffer): boolean {
  const expected = hmacOf(secret, raw)
  const given = Buffer.from(sent, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** Why the hook does not verify under the provider's scheme, or undefined when it does. */
export function signatureProblem(provider: GitProvider, secret: string | undefined, req: Request, raw: Buffer): string | undefined {
  if (secret === undefined) return 'the connection has no secret that opens (set a new one with PATCH)'
  if (provider === 'gitlab') {
    const token = header(req, 'x-gitlab-token')
    if (token === undefined) return 'no X-Gitlab-Token header'
    return timingSafeEqualStr(token, secret) ? undefined : 'X-Gitlab-Token does not match'
  }
  if (provider === 'github') {
    const sent = header(req, 'x-hub-signature-256')
    if (sent === undefined) return 'no X-Hub-Signature-256 header'
    const m = /^sha256=([0-9a-fA-F]{64})$/.exec(sent.trim())
    if (!m) return 'X-Hub-Signature-256 is not sha256=<64 hex digits>'
    return hexMatches(m[1], secret, raw) ? undefined : 'X-Hub-Signature-256 does not match the body'
  }
  const sent = header(req, 'x-gitea-signature')
  if (sent === undefined) return 'no X-Gitea-Signature header'
  if (!/^[0-9a-fA-F]{64}$/.test(sent.trim())) return 'X-Gitea-Signature is not 64 hex digits'
  return hexMatches(sent.trim(), secret, raw) ? undefined : 'X-Gitea-Signature does not match the body'
}

/** The hook's JSON payload: a JSON body, or GitHub's form-encoded one (`payload=<JSON>`). */
function payloadOf(req: Request, raw: Buffer): unknown {
  const type = (header(req, 'content-type') ?? '').split(';')[0].trim().toLowerCase()
  let json: Buffer
  if (type === 'application/x-www-form-urlencoded') {
    const payload = new URLSearchParams(raw.toString('utf8')).get('payload')
    if (payload === null) throw new HookPayloadError('A form-encoded hook carries its JSON in a payload field.')
    json = Buffer.from(payload, 'utf8')
  } else if (type === 'application/json' || type === '') json = raw
  else throw new HookPayloadError('Send the hook as application/json.', 415)
  if (jsonTooDeep(json)) throw new HookPayloadError(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`)
  try {
    return JSON.parse(json.toString('utf8'))
  } catch {
    throw new HookPayloadError('The body is not valid JSON.')
  }
}

/** `POST /v1/git/connections/:id/hooks`. */
export function receiveGitHook(deps: Deps): RequestHandler {
  const windows = new SlidingWindows(RATE_LIMIT)
  return async (req: Request, res: Response, next) => {
    const refuse = (status: number, code: string, message: string, opts: { note?: string; headers?: Record<string, string>; cut?: boolean } = {}) => {
      if (opts.note) res.locals.logNote = opts.note
      for (const [k, v] of Object.entries(opts.headers ?? {})) res.setHeader(k, v)
      // A body left unread is not read to its end: the connection closes after the answer.
      const unread = opts.cut || !req.complete
      if (unread) res.setHeader('Connection', 'close')
      res.status(status).json({ error: { code, message } })
      if (unread) res.on('finish', () => closeAfterAnswer(req))
    }
    try {
      if (req.method !== 'POST') return refuse(405, 'method_not_allowed', `${req.method} is not accepted here; use POST.`, { headers: { Allow: 'POST' } })
      const found = await hookConnection(deps, String(req.params.id))
      if (!found) return refuse(404, 'not_found', 'No such git connection.')
      const { connection, secret } = found
      const taken = windows.take(`${connection.id}\u0000${rateKey(senderOf(deps, req))}`, deps.clock.now())
      if (!taken.allowed)
        return refuse(429, 'rate_limited', `More than ${RATE_LIMIT} hooks a minute from this sender.`, { headers: { 'Retry-After': String(taken.reset) } })
      const tooLarge = `The body is larger than ${BODY_LIMIT} bytes.`
      if (Number(req.headers['content-length'] ?? 0) > 2 * BODY_LIMIT) return refuse(413, 'payload_too_large', tooLarge, { cut: true })
      const raw = await readBody(req, BODY_LIMIT)
      if (raw === 'late') return refuse(400, 'bad_request', 'The body did not arrive in time.', { cut: true })
      if (raw === 'cut' || raw === 'drained') return refuse(413, 'payload_too_large', tooLarge, { cut: raw === 'cut' })
      const problem = signatureProblem(connection.provider, secret, req, raw)
      if (problem) return refuse(401, 'unauthorized', 'The hook is not signed with this connection’s secret.', { note: `git hook refused: ${problem}` })
      const event = header(req, EVENT_HEADER[connection.provider])
      if (!event) return refuse(400, 'bad_request', `A ${connection.provider} hook names its event in ${EVENT_HEADER[connection.provider]}.`)
      let handled: boolean
      try {
        handled = await ingestHook(deps, connection, readHook(connection.provider, event, payloadOf(req, raw)))
      } catch (err) {
        if (err instanceof HookPayloadError) return refuse(err.status, err.status === 415 ? 'unsupported_media_type' : 'bad_request', err.message)
        throw err
      }
      res.status(202).json({ accepted: true, event, handled })
    } catch (err) {
      if (err instanceof Aborted) return void req.socket.destroy()
      next(err)
    }
  }
}
