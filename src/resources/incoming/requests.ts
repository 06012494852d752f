// One logged request to an incoming endpoint, as both doors build it: the public URL (receive.ts) and the trigger route.
import { isoAt } from '../../clock.js'
import type { IncomingEndpointsTable, IncomingRequestsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { newId } from '../../ids.js'

export type Outcome = IncomingRequestsTable['outcome']
export const STATUS: Record<Outcome, number> = {
  accepted: 202,
  auth_failed: 401,
  method_not_allowed: 405,
  unsupported_body: 415,
  too_large: 413,
  rate_limited: 429,
  files_refused: 422,
  paused: 503,
}
const LOGGED_BODY = 65_536
/** The only request headers kept and exposed in the log and to automations; never authentication. */
export const KEPT_HEADERS: readonly string[] = ['content-type', 'user-agent', 'x-request-id', 'x-delivery-id']

/**
 * The body as logged: at most LOGGED_BODY bytes of UTF-8 (a character cut in two is dropped), and NUL characters shown
 * as U+FFFD, since PostgreSQL text cannot hold them.
 */
function loggable(body: string): string {
  const bytes = Buffer.from(body, 'utf8')
  const cut = bytes.length > LOGGED_BODY ? new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, LOGGED_BODY)).replace(/\uFFFD$/, '') : body
  return cut.replace(/\u0000/g, '\uFFFD')
}

/** What a logged request came with, as its door (the public URL or the trigger route) read it from HTTP. */
export interface ReceivedRequest {
  method: string
  headers: Readonly<Record<string, string | string[] | undefined>>
  query: unknown
  /** The sender's address, as the rate limits count it. */
  sender: string
}

/** The parts of an HTTP request that a log row keeps. */
export const receivedFrom = (req: Pick<ReceivedRequest, 'method' | 'headers' | 'query'>, sender: string): ReceivedRequest => ({
  method: req.method,
  headers: req.headers,
  query: req.query,
  sender,
})

/**
 * The log row of a request with this outcome; `body` is the text read (none when it was never read), `files` what came
 * with it. The endpoint's own credential header is never kept, whatever its name.
 */
export function requestRow(
  deps: Deps,
  endpoint: Pick<IncomingEndpointsTable, 'id' | 'auth_header_name'>,
  req: ReceivedRequest,
  outcome: Outcome,
  body = '',
  files: readonly { name: string; type: string; size: number }[] = [],
): Omit<IncomingRequestsTable, 'seq'> {
  const secret = endpoint.auth_header_name?.toLowerCase()
  const headers = Object.fromEntries(KEPT_HEADERS.flatMap((h) => (h !== secret && typeof req.headers[h] === 'string' ? [[h, req.headers[h]]] : [])))
  return {
    id: newId(),
    endpoint_id: endpoint.id,
    outcome,
    status: STATUS[outcome],
    method: req.method,
    ip: req.sender,
    headers: JSON.stringify(headers),
    query: JSON.stringify(req.query ?? {}),
    body: loggable(body),
    files: JSON.stringify(files.map((f) => ({ name: f.name, size: f.size, type: f.type }))),
    at: isoAt(deps.clock.now()),
  }
}

/**
 * A file of an accepted multipart request; `stored` is where its bytes went in the file store (a pending file, made
 * complete with the request's log row), or null when they were not kept (no automation listened).
 */
export interface ReceivedFile {
  name: string
  type: string
  size: number
  stored: { id: string; size: number; sha256: string } | null
}
