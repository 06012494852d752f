// Agent kickoff queries, and the agent profile reads delivery needs.
import { type Viewer, visibleBoardIds } from '../../access/visibility.js'
import type { Db, Q } from '../../db/database.js'
import { forUpdate, skipLocked } from '../../db/dialect.js'
import { countsByStatus, literal } from '../../db/sql.js'
import type { AgentKickoffsTable } from '../../db/types.js'
import type { KickoffListParams } from './schema.js'

/** The statuses of agent_kickoffs_due (schema.sql), written into the SQL so that SQLite uses that index. */
const UNDELIVERED = [literal('pending'), literal('queued')]

export const getKickoff = (q: Q, id: string) => q.selectFrom('agent_kickoffs').selectAll().where('id', '=', id).executeTakeFirst()
export const lockKickoff = (q: Q, id: string) => forUpdate(q, q.selectFrom('agent_kickoffs').selectAll().where('id', '=', id)).executeTakeFirst()
export const insertKickoff = (q: Q, row: AgentKickoffsTable) => q.insertInto('agent_kickoffs').values(row).execute()

/**
 * Changes a kickoff that is still waiting for delivery; false when it was delivered, expired or cancelled meanwhile.
 * `unleasedAt`: only if no process holds its lease at that time (the claim route, racing the dispatcher).
 */
export const settleUndelivered = async (q: Q, id: string, set: Partial<AgentKickoffsTable>, unleasedAt?: number): Promise<boolean> =>
  Number(
    (
      await q
        .updateTable('agent_kickoffs')
        .set(set)
        .where('id', '=', id)
        .where('status', 'in', UNDELIVERED)
        .$if(unleasedAt !== undefined, (qb) => qb.where('lease_until', '<', unleasedAt!))
        .executeTakeFirst()
    ).numUpdatedRows,
  ) > 0

export const cancelUndelivered = (q: Q, id: string, at: string) => settleUndelivered(q, id, { status: 'cancelled', lease_until: 0, updated_at: at })

/** Undelivered kickoffs due for an attempt whose lease has run out, oldest due first. */
const dueKickoffs = (q: Q, now: number) =>
  q
    .selectFrom('agent_kickoffs')
    .where('status', 'in', UNDELIVERED)
    .where('next_attempt_at', '<=', now)
    .where('lease_until', '<', now)
    .orderBy('next_attempt_at')

/** Whether a kickoff is due: a plain read, so an idle poll never takes the write lock. */
export const anyDueKickoff = async (q: Q, now: number): Promise<boolean> => (await dueKickoffs(q, now).select('id').limit(1).executeTakeFirst()) !== undefined

/** Claims up to `limit` kickoffs due for an attempt, reserving them until `leaseUntil`. */
export async function claimDueKickoffs(q: Q, now: number, leaseUntil: number, limit: number): Promise<AgentKickoffsTable[]> {
  const due = await skipLocked(q, dueKickoffs(q, now).selectAll().limit(limit)).execute()
  if (due.length === 0) return []
  await q
    .updateTable('agent_kickoffs')
    .set({ lease_until: leaseUntil })
    .where(
      'id',
      'in',
      due.map((k) => k.id),
    )
    .execute()
  return due
}

/** Hands back claimed kickoffs this process will not attempt (shutdown). */
export const releaseKickoffs = (q: Q, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve()
    : q
        .updateTable('agent_kickoffs')
        .set({ lease_until: 0 })
        .where('id', 'in', [...ids])
        .execute()
        .then(() => {})

/** When the next undelivered kickoff falls due after `now` (one due already is claimed, or leased by an attempt). */
export const nextKickoffDue = async (q: Q, now: number): Promise<number | undefined> =>
  (
    await q
      .selectFrom('agent_kickoffs')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('status', 'in', UNDELIVERED)
      .where('next_attempt_at', '>', now)
      .executeTakeFirst()
  )?.at ?? undefined

/**
 * Undelivered kickoffs of these agents on boards the viewer sees that no process is attempting now and have not
 * expired, oldest first.
 */
export const claimableKickoffs = (q: Q, viewer: Viewer, agentIds: readonly string[], now: number, nowIso: string) =>
  q
    .selectFrom('agent_kickoffs')
    .selectAll()
    .where('agent_id', 'in', [...agentIds])
    .where('board_id', 'in', visibleBoardIds(q, viewer))
    .where('status', 'in', UNDELIVERED)
    .where('lease_until', '<', now)
    .where('expires_at', '>', nowIso)
    .orderBy('created_at')
    .orderBy('id')
    .limit(100)
    .execute()

/**
 * A claim long poll starts waiting for these agents until `until`, in the database so that a dispatcher in any process
 * sees it; rows a dead process left behind (their `until` passed) go at the same time.
 */
export async function recordClaimWait(q: Q, id: string, agentIds: readonly string[], until: number, now: number): Promise<void> {
  await q
    .deleteFrom('agent_claim_waits')
    .where('agent_id', 'in', [...agentIds])
    .where('until', '<', now)
    .execute()
  await q
    .insertInto('agent_claim_waits')
    .values(agentIds.map((agent_id) => ({ id, agent_id, until })))
    .execute()
}
export const endClaimWait = (q: Q, id: string, agentIds: readonly string[]) =>
  q
    .deleteFrom('agent_claim_waits')
    .where('agent_id', 'in', [...agentIds])
    .where('id', '=', id)
    .execute()
/** Whether a claim long poll, in any process, waits for the agent now. */
export const claimWaitOpen = async (q: Q, agentId: string, now: number): Promise<boolean> =>
  (await q.selectFrom('agent_claim_waits').select('id').where('agent_id', '=', agentId).where('until', '>', now).limit(1).executeTakeFirst()) !== undefined

/** Base of the kickoff list: kickoffs on the boards the viewer sees. */
export function visibleKickoffsQuery(q: Q, viewer: Viewer, params: KickoffListParams) {
  let query = q.selectFrom('agent_kickoffs').where('agent_kickoffs.board_id', 'in', visibleBoardIds(q, viewer))
  if (params.status) query = query.where('agent_kickoffs.status', '=', params.status)
  if (params.agent) query = query.where('agent_kickoffs.agent_id', '=', params.agent)
  if (params.card) query = query.where('agent_kickoffs.card_id', '=', params.card)
  return query
}

/** How many kickoffs have each status, for /metrics. */
export const kickoffsByStatus = (db: Db) => countsByStatus(db, 'agent_kickoffs')
