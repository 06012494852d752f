// Incoming endpoint queries.
import type { Q } from '../../db/database.js'
import { fixedQuery, firstOf, rowInsert } from '../../db/sql.js'
import type { IncomingEndpointsTable, IncomingRequestsTable } from '../../db/types.js'

/** Requests kept in each endpoint's log. */
const REQUESTS_KEPT = 100

export const getIncoming = (q: Q, id: string) => q.selectFrom('incoming_endpoints').selectAll().where('id', '=', id).executeTakeFirst()
export const insertIncoming = (q: Q, row: IncomingEndpointsTable) => q.insertInto('incoming_endpoints').values(row).execute()
/** Changes an endpoint; false when it is gone (a concurrent delete). */
export const updateIncomingRow = async (q: Q, id: string, set: Partial<IncomingEndpointsTable>): Promise<boolean> =>
  Number((await q.updateTable('incoming_endpoints').set(set).where('id', '=', id).executeTakeFirst()).numUpdatedRows) > 0
/** Deletes an endpoint; false when it was already gone. */
export const deleteIncomingRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('incoming_endpoints').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0
/** Base query of the list route: every endpoint of the workspace. */
export const incomingQuery = (q: Q) => q.selectFrom('incoming_endpoints')

export async function setIncomingBoards(q: Q, endpointId: string, boardIds: readonly string[]): Promise<void> {
  await q.deleteFrom('incoming_endpoint_boards').where('endpoint_id', '=', endpointId).execute()
  if (boardIds.length)
    await q
      .insertInto('incoming_endpoint_boards')
      .values(boardIds.map((board_id) => ({ endpoint_id: endpointId, board_id })))
      .execute()
}
/** The allowed boards of several endpoints, in one query. */
export async function boardsOfIncoming(q: Q, ids: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  if (ids.length === 0) return out
  const rows = await q
    .selectFrom('incoming_endpoint_boards')
    .select(['endpoint_id', 'board_id'])
    .where('endpoint_id', 'in', [...ids])
    .orderBy('board_id')
    .execute()
  for (const r of rows) out.set(r.endpoint_id, [...(out.get(r.endpoint_id) ?? []), r.board_id])
  return out
}

const byPath = fixedQuery((q: Q, path: string) => q.selectFrom('incoming_endpoints').selectAll().where('path', '=', path))
/** The endpoint answering at /v1/hooks/<path>, if any. */
export const getIncomingByPath = (q: Q, path: string) => firstOf(q, byPath(q, path))

// Compiled once: the log is written on every request to /v1/hooks/<path>.
const insertRequest = rowInsert('incoming_requests', 'endpoint_id')

/** Logs a request (its kept files are completed in the file store by the service, in the same transaction). */
export async function insertIncomingRequest(q: Q, row: Omit<IncomingRequestsTable, 'seq'>): Promise<void> {
  await insertRequest(q, row)
}

/**
 * Keeps only the endpoint's newest REQUESTS_KEPT logged requests (their files go with them); a request whose runs have
 * not finished stays until they have, so a create_card step still finds its files.
 */
export async function pruneIncomingRequests(q: Q, endpointId: string): Promise<void> {
  const cutoff = q.selectFrom('incoming_requests').select('seq').where('endpoint_id', '=', endpointId).orderBy('seq', 'desc').limit(1).offset(REQUESTS_KEPT)
  await q
    .deleteFrom('incoming_requests')
    .where('endpoint_id', '=', endpointId)
    .where('seq', '<=', cutoff)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('automation_runs')
            .select('automation_runs.id')
            .whereRef('automation_runs.request_id', '=', 'incoming_requests.id')
            .where('automation_runs.status', 'in', ['queued', 'running']),
        ),
      ),
    )
    .execute()
}

/** An endpoint's logged requests, newest first. */
export const listIncomingRequests = (q: Q, endpointId: string) =>
  q.selectFrom('incoming_requests').selectAll().where('endpoint_id', '=', endpointId).orderBy('seq', 'desc').limit(REQUESTS_KEPT).execute()
