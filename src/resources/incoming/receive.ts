// The receiving side of incoming webhooks, /v1/hooks/<path>. Public: the random path (and the endpoint's own
// credentials, when it has some) is the key. A request to a known endpoint is judged in this order, logged with its
// outcome, and answered: paused 503, method 405, rate 429, authentication 401, size 413, body 415,
// files 422, else 202 once recorded. An unknown path is a 404 logged against nothing.
import type { Readable } from 'node:stream'
import busboy, { type Busboy } from 'busboy'
import type { Request, RequestHandler, Response } from 'express'
import type { IncomingEndpointsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import type { AuthCredentials } from '../../delivery/credentials.js'
import { CHAIN_HEADER, chainFromHeader } from '../../delivery/chain.js'
import { timingSafeEqualStr } from '../../delivery/signing.js'
import { rateKey, senderOf, SlidingWindows } from '../../http/rate-limit.js'
import { type Outcome, type ReceivedFile, receivedFrom, requestRow } from './requests.js'
import { endpointHasListeners, incomingAt, logIncomingRequest, openIncomingAuth } from './service.js'
import { fromJsonColumn, StringList } from '../../db/json.js'
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../json-depth.js'
import { isoAt } from '../../clock.js'
import { inBackground } from '../../db/database.js'
import { newId } from '../../ids.js'
import { beginFile, discardFile, writeChunks } from '../files/chunks.js'

/** The largest body (1 MB) taken without files; git hooks are held to it too. */
export const BODY_LIMIT = 1_048_576
const FILES_BODY_LIMIT = 26_214_400
/** Requests per minute per endpoint and sender (always on, unlike the general rate limit). */
const RATE_LIMIT = 120

function authenticated(endpoint: IncomingEndpointsTable, creds: AuthCredentials, req: Request): boolean {
  if (endpoint.auth_type === 'header') {
    const sent = req.headers[endpoint.auth_header_name!.toLowerCase()]
    return typeof sent === 'string' && timingSafeEqualStr(sent, creds.header_value ?? '')
  }
  if (endpoint.auth_type === 'basic') {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(req.headers.authorization ?? '')
    const decoded = m ? Buffer.from(m[1], 'base64').toString('utf8') : ''
    const colon = decoded.indexOf(':')
    if (!m || colon < 0) return false
    // Both compared, whatever the first gives, so the time taken says nothing about which one was wrong.
    const user = timingSafeEqualStr(decoded.slice(0, colon), creds.username ?? '')
    const password = timingSafeEqualStr(decoded.slice(colon + 1), creds.password ?? '')
    return user && password
  }
  return true
}

/** How long a body may take to arrive once the request has passed every check before it. */
const BODY_DEADLINE_MS = 30_000
/** Thrown when the client went away mid-body: there is no one left to answer or to log for. */
export class Aborted extends Error {}

/**
 * Calls `gone` once if the request's body will never arrive whole: it failed, or it closed before its end. A request
 * that went away while the handler awaited the database (before anything listened to it) is already destroyed and
 * emits nothing more, so that is checked at once; without this a read would wait for its deadline.
 */
function onGone(req: Request, gone: () => void): void {
  if (req.destroyed && !req.complete) return void queueMicrotask(gone)
  req.on('error', gone)
  req.on('close', () => {
    if (!req.complete) gone()
  })
}

/**
 * Bytes past the limit still read (and thrown away) before a 413, so that a client whose body is only a little too
 * large has sent it all and reads the answer, rather than meeting a closed connection mid-write. Past that, the
 * connection is cut: a huge upload is never read to its end.
 */
const DRAIN_BYTES = BODY_LIMIT

/**
 * The body, read while counting: past `limit` bytes nothing more is kept, and 'drained' comes back once the body has
 * ended within DRAIN_BYTES more, else 'cut' (reading stops there); 'late' when it has not all arrived within
 * BODY_DEADLINE_MS (a slow or stalled sender never holds the request open).
 */
export function readBody(req: Request, limit: number): Promise<Buffer | 'drained' | 'cut' | 'late'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = (value: Buffer | 'drained' | 'cut' | 'late') => {
      clearTimeout(timer)
      req.off('data', onData)
      if (value === 'cut' || value === 'late') req.pause()
      resolve(value)
    }
    const timer = setTimeout(() => stop('late'), BODY_DEADLINE_MS)
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit + DRAIN_BYTES) stop('cut')
      else if (size <= limit) chunks.push(chunk)
    }
    req.on('data', onData)
    req.on('end', () => stop(size > limit ? 'drained' : Buffer.concat(chunks)))
    onGone(req, () => {
      clearTimeout(timer)
      reject(new Aborted())
    })
  })
}

const late = (): Judged => ({ outcome: 'unsupported_body', message: `The body did not arrive within ${BODY_DEADLINE_MS / 1000} s.`, cut: true })

/** The error code of each refusal (the outcome itself is in the log). */
const CODE: Record<Exclude<Outcome, 'accepted'>, string> = {
  auth_failed: 'unauthorized',
  method_not_allowed: 'method_not_allowed',
  unsupported_body: 'unsupported_media_type',
  too_large: 'payload_too_large',
  rate_limited: 'rate_limited',
  files_refused: 'validation_failed',
  paused: 'paused',
}

interface Judged {
  outcome: Outcome
  /** The answer's status and error code when they are not the outcome's usual ones (a body too deep is a 400). */
  status?: number
  code?: string
  message?: string
  headers?: Record<string, string>
  body?: string
  files?: ReceivedFile[]
  /** Stop reading the request and close the connection after answering (a body past the limit). */
  cut?: boolean
}

const tooLarge = (limit: number): Judged => ({ outcome: 'too_large', message: `The body is larger than ${limit} bytes.`, cut: true })

/**
 * multipart/form-data for an endpoint that takes files: every part with a filename is a file, whatever its field name.
 * The whole body is counted against `limit` as it streams; the (max_files + 1)th file refuses the request. The fields
 * become the body (as JSON). The files' bytes are kept only when `keepFiles` (an automation listens): then each part
 * streams into the file store as it arrives (files/chunks.ts, a chunk of at most 1 MB per short transaction, as
 * background work), pending until the request is logged; otherwise they are counted and thrown away as they arrive,
 * and the log keeps their names and sizes. A request that ends any other way than accepted discards what was stored.
 */
function readMultipart(deps: Deps, req: Request, limit: number, maxFiles: number, keepFiles: boolean): Promise<Judged> {
  /** The parts being stored, and the stored files (so a refusal or an abort can discard them once they stop). */
  const storing: { stream: Readable; task: Promise<unknown>; id: string }[] = []
  const discardAll = async (reason: Error) => {
    for (const s of storing) s.stream.destroy(reason)
    for (const s of storing) {
      await s.task.catch(() => {})
      await discardFile(deps.db, s.id)
    }
  }
  return new Promise((resolve, reject) => {
    let settled = false
    const finish = (judged: Judged) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.unpipe(parser)
      req.off('data', count)
      if (judged.cut) req.pause()
      if (judged.outcome === 'accepted') return resolve(judged)
      void discardAll(new Error(judged.message ?? judged.outcome)).then(() => resolve(judged))
    }
    let parser: Busboy
    const timer = setTimeout(() => finish(late()), BODY_DEADLINE_MS)
    try {
      parser = busboy({ headers: req.headers, limits: { files: maxFiles, fileSize: limit, fields: 1000, fieldSize: BODY_LIMIT, parts: 1000 + maxFiles } })
    } catch {
      clearTimeout(timer)
      return resolve({ outcome: 'unsupported_body', message: 'The multipart body has no usable boundary.', cut: true })
    }
    let size = 0
    const count = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) finish(tooLarge(limit))
    }
    const fields = new Map<string, string>()
    const files: Promise<ReceivedFile>[] = []
    parser.on('field', (name, value) => fields.set(name, value))
    parser.on('file', (_name, stream, info) => {
      // A body that ends inside this part fails the part's stream as well as the parser: the parser's error answers
      // (415), and this listener keeps the stream's copy of it from being an uncaught error that ends the process.
      stream.on('error', () => {})
      const name = info.filename ?? ''
      if (!keepFiles) {
        let fileSize = 0
        stream.on('data', (c: Buffer) => (fileSize += c.length))
        files.push(new Promise((done) => stream.on('end', () => done({ name, type: info.mimeType, size: fileSize, stored: null }))))
        return
      }
      const id = newId()
      const task = inBackground(async () => {
        await beginFile(deps.db, {
          id,
          card_id: null,
          note_id: null,
          request_id: null,
          name,
          content_type: info.mimeType,
          created_by: null,
          created_at: isoAt(deps.clock.now()),
        })
        return writeChunks(deps.db, id, stream, limit)
      })
      storing.push({ stream, task, id })
      const received = task.then((stored) => ({ name, type: info.mimeType, size: stored.size, stored }))
      received.catch(() => {}) // a failed store is answered through finish() below; this copy must not go unhandled
      files.push(received)
      // A store that fails (the database) refuses the request; what it wrote is discarded with the rest.
      task.catch(() => finish({ outcome: 'unsupported_body', status: 503, code: 'unavailable', message: 'The files could not be stored.', cut: true }))
    })
    parser.on('filesLimit', () => finish({ outcome: 'files_refused', message: `More than ${maxFiles} files.`, cut: true }))
    for (const event of ['fieldsLimit', 'partsLimit'] as const) parser.on(event, () => finish(tooLarge(limit)))
    parser.on('error', () => finish({ outcome: 'unsupported_body', message: 'The multipart body is malformed.', cut: true }))
    parser.on('close', () => {
      Promise.all(files).then(
        (received) => finish({ outcome: 'accepted', body: JSON.stringify(Object.fromEntries(fields)), files: received }),
        () => {}, // the store's failure finished above
      )
    })
    onGone(req, () => {
      clearTimeout(timer)
      if (!settled) {
        settled = true
        void discardAll(new Aborted()).then(() => reject(new Aborted()))
      }
    })
    req.on('data', count)
    req.pipe(parser)
  })
}

/** Uploads (multipart bodies) read at once per endpoint, and in all, by this process. */
export const UPLOADS_PER_ENDPOINT = 4
export const UPLOADS_IN_ALL = 16

/**
 * Counts the uploads being read and recorded, so that many large bodies at once can neither hold hundreds of MB nor
 * take the event loop from everyone else: past a bound the request is refused unread (429, Retry-After: 1).
 */
class UploadSlots {
  private readonly perEndpoint = new Map<string, number>()
  private all = 0
  take(endpointId: string): boolean {
    const n = this.perEndpoint.get(endpointId) ?? 0
    if (n >= UPLOADS_PER_ENDPOINT || this.all >= UPLOADS_IN_ALL) return false
    this.perEndpoint.set(endpointId, n + 1)
    this.all++
    return true
  }
  release(endpointId: string): void {
    const n = (this.perEndpoint.get(endpointId) ?? 1) - 1
    if (n > 0) this.perEndpoint.set(endpointId, n)
    else this.perEndpoint.delete(endpointId)
    this.all--
  }
}

const uploadsBusy = (): Judged => ({
  outcome: 'rate_limited',
  message: `This endpoint is receiving ${UPLOADS_PER_ENDPOINT} uploads already (or the server ${UPLOADS_IN_ALL} in all); send again in a moment.`,
  headers: { 'Retry-After': '1' },
  cut: true,
})

/** What a request to this endpoint comes to, reading its body only once everything before it has passed. */
async function judge(
  deps: Deps,
  windows: SlidingWindows,
  uploads: { slots: UploadSlots; taken: boolean },
  endpoint: IncomingEndpointsTable,
  req: Request,
  sender: string,
): Promise<Judged> {
  if (endpoint.paused) return { outcome: 'paused', message: 'This endpoint is paused.' }
  const methods = fromJsonColumn(StringList, endpoint.methods)
  if (!methods.includes(req.method)) {
    return { outcome: 'method_not_allowed', message: `${req.method} is not accepted here; use ${methods.join(', ')}.`, headers: { Allow: methods.join(', ') } }
  }
  const taken = windows.take(`${endpoint.id}\u0000${rateKey(sender)}`, deps.clock.now())
  if (!taken.allowed) {
    return { outcome: 'rate_limited', message: `More than ${RATE_LIMIT} requests a minute from this sender.`, headers: { 'Retry-After': String(taken.reset) } }
  }
  if (!authenticated(endpoint, openIncomingAuth(deps, endpoint), req)) {
    return {
      outcome: 'auth_failed',
      message: 'Missing or wrong credentials.',
      headers: endpoint.auth_type === 'basic' ? { 'WWW-Authenticate': 'Basic realm="taskd"' } : undefined,
    }
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
  // 25 MB is for files: other bodies stay at 1 MB whatever the endpoint, so a JSON body never holds 25 MB of memory.
  const limit = type === 'multipart/form-data' && endpoint.accept_files ? FILES_BODY_LIMIT : BODY_LIMIT
  const declared = Number(req.headers['content-length'] ?? 0)
  // A multipart body past its (25 MB) limit is refused unread; any other is drained if it is only a little too large.
  if (declared > limit + (type === 'multipart/form-data' ? 0 : DRAIN_BYTES)) return tooLarge(limit)
  if (type === 'multipart/form-data') {
    if (!endpoint.accept_files) return { outcome: 'files_refused', message: 'This endpoint does not take files (multipart/form-data).', cut: true }
    if (!uploads.slots.take(endpoint.id)) return uploadsBusy()
    uploads.taken = true
    return readMultipart(deps, req, limit, endpoint.max_files, await endpointHasListeners(deps, endpoint))
  }
  const raw = await readBody(req, limit)
  if (raw === 'late') return late()
  if (raw === 'cut') return tooLarge(limit)
  if (raw === 'drained') return { ...tooLarge(limit), cut: false }
  const text = raw.toString('utf8')
  if (type === 'application/json') {
    // Measured before it is parsed: automations dig into this body, and a run must never meet 20,000 levels of it.
    if (jsonTooDeep(raw)) {
      return { outcome: 'unsupported_body', status: 400, code: 'bad_request', message: `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`, body: text }
    }
    try {
      JSON.parse(text)
    } catch {
      return { outcome: 'unsupported_body', message: 'The body is not valid JSON.', body: text }
    }
  } else if (type !== 'application/x-www-form-urlencoded' && !(type === '' && raw.length === 0)) {
    return { outcome: 'unsupported_body', message: 'Send application/json, application/x-www-form-urlencoded, or no body.', body: text }
  }
  return { outcome: 'accepted', body: text }
}

/** After a refusal with the body unread: a little more is read and thrown away, so the client is not writing into
 *  a closed connection while the answer travels to it; then the connection goes, whatever is left of the body. */
const AFTER_ANSWER_BYTES = 4 * BODY_LIMIT
const AFTER_ANSWER_MS = 2000
export function closeAfterAnswer(req: Request): void {
  let discarded = 0
  const close = () => {
    clearTimeout(timer)
    req.socket.destroy()
  }
  const timer = setTimeout(close, AFTER_ANSWER_MS)
  timer.unref()
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > AFTER_ANSWER_BYTES) close()
  })
  req.on('end', close)
  req.resume()
}

/** `ALL /v1/hooks/:path`. */
export function receiveIncoming(deps: Deps): RequestHandler {
  const windows = new SlidingWindows(RATE_LIMIT)
  const slots = new UploadSlots()
  return async (req: Request, res: Response, next) => {
    // An upload's slot is held until its files are recorded (or it failed): that is when its bytes are let go.
    const uploads = { slots, taken: false }
    let endpointId: string | undefined
    try {
      const endpoint = await incomingAt(deps, String(req.params.path))
      if (!endpoint) {
        res.setHeader('Connection', 'close')
        res.status(404).json({ error: { code: 'not_found', message: 'No such incoming webhook.' } })
        return
      }
      endpointId = endpoint.id
      const sender = senderOf(deps, req)
      const judged = await judge(deps, windows, uploads, endpoint, req, sender)
      const row = requestRow(deps, endpoint, receivedFrom(req, sender), judged.outcome, judged.body, judged.files)
      if (judged.status) row.status = judged.status
      // A call an automation run made (its http_request step) names the run's chain: those automations do not start again.
      const chain = chainFromHeader(deps.secrets, req.headers[CHAIN_HEADER.toLowerCase()], deps.clock.now())
      await logIncomingRequest(deps, endpoint, row, judged.outcome === 'accepted' ? { body: judged.body ?? '', files: judged.files, chain } : undefined)
      for (const [k, v] of Object.entries(judged.headers ?? {})) res.setHeader(k, v)
      if (judged.outcome === 'accepted') {
        res.status(202).json({ accepted: true, request_id: row.id })
        return
      }
      // A body left unread (too large, or never looked at) is not read to its end: the connection closes after the answer.
      if (judged.cut || !req.complete) res.setHeader('Connection', 'close')
      res.status(row.status).json({ error: { code: judged.code ?? CODE[judged.outcome], message: judged.message } })
      if (judged.cut || !req.complete) res.on('finish', () => closeAfterAnswer(req))
    } catch (err) {
      if (err instanceof Aborted) return void req.socket.destroy()
      next(err)
    } finally {
      if (uploads.taken) slots.release(endpointId!)
    }
  }
}
