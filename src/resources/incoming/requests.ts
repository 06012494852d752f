// One logged request to an incoming endpoint, as both doors build it: the public URL (receive.ts) and the trigger route.
import type { Request } from 'express'
import { isoAt } from '../../clock.js'
import type { IncomingRequestsTable } from '../../db/types.js'
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
/** The only request headers kept and exposed (SPEC "Incoming endpoint events"); never authentication. */
const KEPT_HEADERS = ['content-type', 'user-agent', 'x-request-id', 'x-delivery-id'] as const

/** The sender: the peer's address (an IPv4 peer without its IPv6 mapping). */
export const senderOf = (req: Request) => (req.socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.)/, '')

/** The log row of a request with this outcome; `body` is the text read (none when it was never read), `files` what came with it. */
export function requestRow(
  deps: Deps,
  endpointId: string,
  req: Request,
  outcome: Outcome,
  body = '',
  files: readonly { name: string; type: string; size: number }[] = [],
): Omit<IncomingRequestsTable, 'seq'> {
  const headers = Object.fromEntries(KEPT_HEADERS.flatMap((h) => (typeof req.headers[h] === 'string' ? [[h, req.headers[h]]] : [])))
  return {
    id: newId(),
    endpoint_id: endpointId,
    outcome,
    status: STATUS[outcome],
    method: req.method,
    ip: senderOf(req),
    headers: JSON.stringify(headers),
    query: JSON.stringify(req.query ?? {}),
    body: body.slice(0, LOGGED_BODY),
    files: JSON.stringify(files.map((f) => ({ name: f.name, size: f.size, type: f.type }))),
    at: isoAt(deps.clock.now()),
  }
}
