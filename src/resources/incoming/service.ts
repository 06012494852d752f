// Incoming webhook endpoints: owners and admins create, change, regenerate and delete them (members get 403). The
// credentials a sender must present are write-only: sealed under the master key, bound to the endpoint.
import { type Actor, isAdmin } from '../../access/roles.js'
import { boardsSeenAmong, visibleBoardIds } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import { publicBaseUrl } from '../../config.js'
import { type Db, inBackground, type Q } from '../../db/database.js'
import { WriteBatch } from '../../db/write-batch.js'
import type { IncomingEndpointsTable, IncomingRequestsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, type ErrorDetail, forbidden, HttpError, notFound, unprocessable } from '../../errors.js'
import { newHookPath, newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { audit } from '../audit/record.js'
import { type AuthCredentials, mergeAuth, openAuth, sealAuth, type StoredAuth } from '../../delivery/credentials.js'
import { automationsOfEndpoint, listeningToEndpoint, runsOfRequests } from '../automations/published.js'
import { queueIncomingRuns } from '../automations/triggers.js'
import { incomingViews } from './present.js'
import { INCOMING_LIST } from './query.js'
import { type CreateIncomingInput, IncomingLogSchema, type IncomingLogView, type IncomingWebhookView, type UpdateIncomingInput } from './schema.js'
import { KEPT_HEADERS, type ReceivedFile, type ReceivedRequest, requestRow } from './requests.js'
import { discardFile } from '../files/chunks.js'
import { capRequestFiles, deleteFileRows, markComplete } from '../files/published.js'
import {
  deleteIncomingRow,
  getIncoming,
  getIncomingByPath,
  incomingQuery,
  insertIncoming,
  insertIncomingRequest,
  pruneIncomingRequests,
  listIncomingRequests,
  setIncomingBoards,
  updateIncomingRow,
} from './store.js'
import { fromJsonColumn, JsonObject, StringMap } from '../../db/json.js'

function assertManager(actor: Actor): void {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins manage incoming webhooks.')
}

/** The endpoint answering at /v1/hooks/<path>, if any (receive.ts). */
export const incomingAt = (deps: Deps, path: string) => getIncomingByPath(deps.db.q, path)

/** Whether any active automation runs on the endpoint's requests (receive.ts keeps the bytes of files only then). */
export const endpointHasListeners = async (deps: Deps, endpoint: IncomingEndpointsTable): Promise<boolean> =>
  (await listeningToEndpoint(deps.db.q, endpoint.id, endpoint.all_boards === 1)).length > 0

/** The credentials a sender must present (opened per request by receive.ts). */
export const openIncomingAuth = (deps: Deps, row: IncomingEndpointsTable): AuthCredentials => openAuth(deps.secrets, row, 'incoming')

const views = (deps: Deps, q: Q, rows: readonly IncomingEndpointsTable[]) => incomingViews(q, publicBaseUrl(deps.config), rows)
const invalid = (details: ErrorDetail[]) => unprocessable('The incoming webhook is not valid.', details)

/** Boards of the allowlist must exist and not be in the trash (managers see every board). */
async function boardProblems(q: Q, actor: Actor, boards: readonly string[]): Promise<ErrorDetail[]> {
  const known = await boardsSeenAmong(q, actor.user, boards)
  return boards.flatMap((id, i) => (known.has(id) ? [] : [{ path: `boards.${i}`, message: 'No such board.' }]))
}

/** The credentials as they will be stored: the merge of the edit with what is stored (write-only: blank keeps, null clears). */
function nextAuth(
  deps: Deps,
  row: IncomingEndpointsTable,
  input: UpdateIncomingInput['auth'],
): Pick<IncomingEndpointsTable, 'auth_type' | 'auth_header_name' | 'auth_enc'> | ErrorDetail[] {
  if (input === undefined) return { auth_type: row.auth_type, auth_header_name: row.auth_header_name, auth_enc: row.auth_enc }
  // Decrypted only when the edit touches the credentials.
  const stored: StoredAuth = { type: row.auth_type, headerName: row.auth_header_name, creds: openIncomingAuth(deps, row) }
  const auth = mergeAuth(stored, input)
  if (Array.isArray(auth)) return auth
  if (auth.headerName && KEPT_HEADERS.includes(auth.headerName.toLowerCase())) {
    return [
      {
        path: 'auth.header_name',
        message: `${auth.headerName} is kept in the request log; a credential needs a header of its own (X-Api-Key, Authorization, ...).`,
      },
    ]
  }
  return {
    auth_type: auth.type as IncomingEndpointsTable['auth_type'],
    auth_header_name: auth.headerName,
    auth_enc: sealAuth(deps.secrets, row.id, auth.creds, 'incoming'),
  }
}

export function listIncoming(deps: Deps, actor: Actor, params: ListParams) {
  assertManager(actor)
  const { q } = deps.db
  return listPage(deps.db, incomingQuery(q), INCOMING_LIST, params, (rows: IncomingEndpointsTable[]) => views(deps, q, rows))
}

async function incomingFor(q: Q, actor: Actor, id: string): Promise<IncomingEndpointsTable> {
  assertManager(actor)
  const row = await getIncoming(q, id)
  if (!row) throw notFound('incoming webhook')
  return row
}

export const getIncomingFor = async (deps: Deps, actor: Actor, id: string): Promise<IncomingWebhookView> =>
  (await views(deps, deps.db.q, [await incomingFor(deps.db.q, actor, id)]))[0]

export function createIncoming(deps: Deps, actor: Actor, input: CreateIncomingInput): Promise<IncomingWebhookView> {
  assertManager(actor)
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const at = isoAt(deps.clock.now())
    const boards = [...new Set(input.boards)]
    const row: IncomingEndpointsTable = {
      id: newId(),
      name: input.name,
      path: newHookPath(),
      auth_type: 'none',
      auth_header_name: null,
      auth_enc: null,
      methods: JSON.stringify([...new Set(input.methods)]),
      all_boards: boards.length === 0 ? 1 : 0,
      accept_files: input.accept_files ? 1 : 0,
      max_files: input.max_files,
      paused: input.paused ? 1 : 0,
      created_by: actor.user.id,
      created_at: at,
      updated_at: at,
    }
    const auth = nextAuth(deps, row, input.auth)
    const details = [...(await boardProblems(q, actor, boards)), ...(Array.isArray(auth) ? auth : [])]
    if (details.length || Array.isArray(auth)) throw invalid(details)
    Object.assign(row, auth)
    await insertIncoming(q, row)
    await setIncomingBoards(q, row.id, boards)
    // Never the path (the URL is the endpoint's secret when it has no credentials) nor the credentials.
    await audit(deps, tx, actor, 'incoming_webhook.created', row, {
      details: { boards: boards.length ? boards : 'all', methods: input.methods, auth_type: row.auth_type, paused: row.paused === 1 },
    })
    return (await views(deps, q, [row]))[0]
  })
}

export function updateIncoming(deps: Deps, actor: Actor, id: string, input: UpdateIncomingInput): Promise<IncomingWebhookView> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    const row = await incomingFor(q, actor, id)
    const boards = input.boards && [...new Set(input.boards)]
    const auth = nextAuth(deps, row, input.auth)
    const details = [...(boards ? await boardProblems(q, actor, boards) : []), ...(Array.isArray(auth) ? auth : [])]
    if (details.length || Array.isArray(auth)) throw invalid(details)
    const set: Partial<IncomingEndpointsTable> = { ...auth, updated_at: isoAt(deps.clock.now()) }
    if (input.name !== undefined) set.name = input.name
    if (input.methods !== undefined) set.methods = JSON.stringify([...new Set(input.methods)])
    if (boards !== undefined) set.all_boards = boards.length === 0 ? 1 : 0
    if (input.accept_files !== undefined) set.accept_files = input.accept_files ? 1 : 0
    if (input.max_files !== undefined) set.max_files = input.max_files
    if (input.paused !== undefined) set.paused = input.paused ? 1 : 0
    if (!(await updateIncomingRow(q, id, set))) throw notFound('incoming webhook')
    if (boards !== undefined) await setIncomingBoards(q, id, boards)
    const now = (await getIncoming(q, id))!
    const changed = Object.keys(input).filter((k) => input[k as keyof UpdateIncomingInput] !== undefined)
    await audit(deps, tx, actor, 'incoming_webhook.updated', now, { details: { changed, paused: now.paused === 1 } })
    return (await views(deps, q, [now]))[0]
  })
}

/** A new random path; the old URL stops working at once. */
export function regenerateIncoming(deps: Deps, actor: Actor, id: string): Promise<IncomingWebhookView> {
  return deps.db.tx(async (tx) => {
    const { q } = tx
    await incomingFor(q, actor, id)
    if (!(await updateIncomingRow(q, id, { path: newHookPath(), updated_at: isoAt(deps.clock.now()) }))) throw notFound('incoming webhook')
    const now = (await getIncoming(q, id))!
    await audit(deps, tx, actor, 'incoming_webhook.updated', now, { details: { changed: ['path'], regenerated: true } })
    return (await views(deps, q, [now]))[0]
  })
}

export async function deleteIncoming(deps: Deps, actor: Actor, id: string): Promise<void> {
  assertManager(actor)
  await deps.db.tx(async (tx) => {
    const { q } = tx
    const users = await automationsOfEndpoint(q, id)
    if (users.length)
      throw conflict(`Automations use this endpoint: ${users.map((a) => `${a.name} (${a.id})`).join(', ')}. Delete them or give them another trigger first.`)
    const row = await getIncoming(q, id)
    if (!row || !(await deleteIncomingRow(q, id))) throw notFound('incoming webhook')
    await audit(deps, tx, actor, 'incoming_webhook.deleted', row)
  })
}

/** The endpoint's newest requests, accepted or refused, newest first. */
export async function incomingLogs(deps: Deps, actor: Actor, id: string): Promise<IncomingLogView[]> {
  const { q } = deps.db
  await incomingFor(q, actor, id)
  const requests = await listIncomingRequests(q, id)
  const runs = await runsOfRequests(
    q,
    requests.filter((r) => r.outcome === 'accepted').map((r) => r.id),
  )
  return requests.map((r) => ({
    id: r.id,
    outcome: r.outcome,
    status: r.status,
    method: r.method,
    ip: r.ip,
    headers: fromJsonColumn(StringMap, r.headers),
    query: fromJsonColumn(JsonObject, r.query),
    body: r.body,
    files: fromJsonColumn(IncomingLogSchema.shape.files, r.files),
    runs: runs.get(r.id) ?? [],
    at: r.at,
  }))
}

/** Whether a workspace member may fire the endpoint: they see a board it allows (any board, for an empty allowlist). */
async function mayTrigger(q: Q, actor: Actor, endpoint: IncomingEndpointsTable): Promise<boolean> {
  let query = q.selectFrom('boards').select('id').where('id', 'in', visibleBoardIds(q, actor.user))
  if (!endpoint.all_boards) {
    query = query.where('id', 'in', q.selectFrom('incoming_endpoint_boards').select('board_id').where('endpoint_id', '=', endpoint.id))
  }
  return (await query.limit(1).executeTakeFirst()) !== undefined
}

/**
 * POST .../trigger: fires the endpoint as the signed-in caller, with no public URL and no external credential; the JSON
 * body is what automations see as webhook.body. Owners and admins for any endpoint, others on a board it allows. Logged
 * like a request to the URL; a paused endpoint answers 503.
 */
export async function triggerIncoming(
  deps: Deps,
  actor: Actor,
  id: string,
  req: ReceivedRequest,
  body: unknown,
): Promise<{ accepted: true; request_id: string }> {
  const endpoint = await getIncoming(deps.db.q, id)
  if (!endpoint) throw notFound('incoming webhook')
  if (!isAdmin(actor) && !(await mayTrigger(deps.db.q, actor, endpoint))) {
    throw forbidden('Only owners, admins and members of a board this endpoint allows may trigger it.')
  }
  const text = JSON.stringify(body)
  const row = requestRow(deps, endpoint, req, endpoint.paused ? 'paused' : 'accepted', text)
  await logIncomingRequest(deps, endpoint, row, endpoint.paused ? undefined : { body: text, by: actor })
  if (endpoint.paused) throw new HttpError(503, 'paused', 'This endpoint is paused.')
  return { accepted: true, request_id: row.id }
}

/** Plain log rows (no files, no runs to queue) are written in batches, one per database. */
const logBatches = new WeakMap<Db, WriteBatch<{ row: Omit<IncomingRequestsTable, 'seq'>; prune: boolean }>>()
function logBatchOf(deps: Deps) {
  let batch = logBatches.get(deps.db)
  if (!batch) {
    batch = new WriteBatch(deps.db, async ({ q }, items) => {
      for (const { row } of items) await insertIncomingRequest(q, row)
      for (const endpoint of new Set(items.filter((i) => i.prune).map((i) => i.row.endpoint_id))) await pruneIncomingRequests(q, endpoint)
    })
    logBatches.set(deps.db, batch)
  }
  return batch
}

/** Requests logged per endpoint (in this process) since its log was last cut back to REQUESTS_KEPT. */
const sincePrune = new Map<string, number>()
const PRUNE_EVERY = 20

/**
 * Logs a request (with its files, when accepted) and queues the runs of the automations listening to the endpoint, in
 * one transaction; every PRUNE_EVERY requests to an endpoint its log is cut back to the newest REQUESTS_KEPT (so the
 * table holds at most a few more, and the cut costs a twentieth per request). `accepted` carries the whole body (the
 * log keeps 64 KB of it) and, for the trigger route, the user who fired it.
 */
export async function logIncomingRequest(
  deps: Deps,
  endpoint: IncomingEndpointsTable,
  row: Omit<IncomingRequestsTable, 'seq'>,
  accepted?: { body: string; files?: readonly ReceivedFile[]; by?: Actor; chain?: readonly string[] },
): Promise<void> {
  // Background work for the database: a flood of calls to incoming endpoints never queues far ahead of API requests.
  return inBackground(() => logRequest(deps, endpoint, row, accepted))
}

async function logRequest(
  deps: Deps,
  endpoint: IncomingEndpointsTable,
  row: Omit<IncomingRequestsTable, 'seq'>,
  accepted?: { body: string; files?: readonly ReceivedFile[]; by?: Actor; chain?: readonly string[] },
): Promise<void> {
  const n = (sincePrune.get(row.endpoint_id) ?? 0) + 1
  const prune = n >= PRUNE_EVERY
  sincePrune.set(row.endpoint_id, prune ? 0 : n)
  const allBoards = endpoint.all_boards === 1
  // Fired through the trigger route by a member: only the automations of boards they see run.
  const by = accepted?.by
  const listenersFor = async (q: Q) => {
    const all = await listeningToEndpoint(q, endpoint.id, allBoards)
    if (!by || isAdmin(by)) return all
    const seen = await boardsSeenAmong(
      q,
      by.user,
      all.map((a) => a.board_id),
    )
    return all.filter((a) => seen.has(a.board_id))
  }
  const stored = (accepted?.files ?? []).flatMap((f) => (f.stored ? [{ ...f, stored: f.stored }] : []))
  try {
    const listening = accepted ? await listenersFor(deps.db.q) : []
    // Files are kept for the automations that run on them: with none listening (or bytes not kept) only the log's names and sizes remain.
    const files = listening.length === 0 ? [] : stored
    if (files.length < stored.length)
      await deps.db.tx(({ q }) =>
        deleteFileRows(
          q,
          stored.map((f) => f.stored.id),
        ),
      )
    // The usual case without files or automations: one INSERT, committed together with the others of the moment.
    if (files.length === 0 && listening.length === 0) return await logBatchOf(deps).add({ row, prune })
    await deps.db.tx(async (tx) => {
      await insertIncomingRequest(tx.q, row)
      // The pending files (written chunk by chunk while the body arrived) become the request's, complete.
      const kept = []
      for (const f of files) if (await markComplete(tx.q, f.stored.id, f.stored.size, f.stored.sha256, { request_id: row.id, created_at: row.at })) kept.push(f)
      if (accepted && listening.length > 0) {
        const webhook = {
          name: endpoint.name,
          method: row.method,
          body: accepted.body,
          query: fromJsonColumn(JsonObject, row.query),
          headers: fromJsonColumn(StringMap, row.headers),
          ip: row.ip,
          files: kept.map((f) => ({ id: f.stored.id, name: f.name, size: f.stored.size, type: f.type })),
        }
        // Read again inside the transaction: an automation deleted since gets no run.
        const listeners = await listenersFor(tx.q)
        await queueIncomingRuns(deps, tx, listeners, endpoint, { id: row.id, webhook, chain: accepted.chain }, by && { id: by.user.id, name: by.user.name })
      }
      if (kept.length > 0) await capRequestFiles(tx.q, row.endpoint_id, deps.config.incomingFilesKeptBytes)
      if (prune) await pruneIncomingRequests(tx.q, row.endpoint_id)
    })
  } catch (err) {
    // Nothing of a request that could not be logged stays: its pending files go.
    for (const f of stored) await discardFile(deps.db, f.stored.id)
    throw err
  }
}
