// Automation and run queries.
import { roleSeesBoard } from '../../access/records.js'
import { copyFile, getFiles } from '../files/published.js'
import { type Viewer, visibleBoardIds } from '../../access/visibility.js'
import type { Db, Q } from '../../db/database.js'
import { skipLocked } from '../../db/dialect.js'
import { countsByStatus, fixedQuery, literal, rowInsert, rowsOf } from '../../db/sql.js'
import type { AutomationRunStepsTable, AutomationRunsTable, AutomationsTable } from '../../db/types.js'
import { newId } from '../../ids.js'

/** Finished runs kept per automation. */
const RUNS_KEPT = 200

export const getAutomation = (q: Q, id: string) => q.selectFrom('automations').selectAll().where('id', '=', id).executeTakeFirst()
export const insertAutomation = (q: Q, row: AutomationsTable) => q.insertInto('automations').values(row).execute()
/** Changes an automation; false when it is gone. */
export const updateAutomationRow = async (q: Q, id: string, set: Partial<AutomationsTable>): Promise<boolean> =>
  Number((await q.updateTable('automations').set(set).where('id', '=', id).executeTakeFirst()).numUpdatedRows) > 0
export const deleteAutomationRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('automations').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0
/** The automations of the boards the viewer sees, optionally of one board: the base of the list. */
export const visibleAutomationsQuery = (q: Q, viewer: Viewer, board?: string) => {
  let query = q.selectFrom('automations').where('board_id', 'in', visibleBoardIds(q, viewer))
  if (board) query = query.where('board_id', '=', board)
  return query
}

export async function setAutomationSecrets(q: Q, automationId: string, secretIds: readonly string[]): Promise<void> {
  await q.deleteFrom('automation_secrets').where('automation_id', '=', automationId).execute()
  if (secretIds.length)
    await q
      .insertInto('automation_secrets')
      .values(secretIds.map((secret_id) => ({ automation_id: automationId, secret_id })))
      .execute()
}
/** Names of the automations that use a signing secret. */
export const automationsUsingSecret = (q: Q, secretId: string) =>
  q
    .selectFrom('automation_secrets')
    .innerJoin('automations', 'automations.id', 'automation_secrets.automation_id')
    .select(['automations.id', 'automations.name'])
    .where('automation_secrets.secret_id', '=', secretId)
    .execute()
/** Automations an incoming endpoint triggers. */
export const automationsOfEndpoint = (q: Q, endpointId: string) =>
  q.selectFrom('automations').select(['id', 'name']).where('endpoint_id', '=', endpointId).execute()

// The board checks are correlated scalar subqueries, not joins: SQLite then opens no cursor on boards (or on the
// allowlist) unless an automation matches; with a join, a request to an endpoint no automation uses cost three times as much.
const listening = (q: Q, endpointId: string) =>
  q
    .selectFrom('automations')
    .select(['automations.id', 'automations.name', 'automations.steps', 'automations.board_id'])
    .where('automations.endpoint_id', '=', endpointId)
    .where('automations.active', '=', 1)
    .where((eb) => eb(eb.selectFrom('boards').select('boards.trashed_at').whereRef('boards.id', '=', 'automations.board_id'), 'is', null))
// Compiled once each: asked on every accepted request to /v1/hooks/<path>.
const listeningOnAllBoards = fixedQuery(listening)
const listeningOnAllowlist = fixedQuery((q: Q, endpointId: string) =>
  listening(q, endpointId).where((eb) =>
    eb(
      eb
        .selectFrom('incoming_endpoint_boards')
        .select('incoming_endpoint_boards.board_id')
        .where('incoming_endpoint_boards.endpoint_id', '=', endpointId)
        .whereRef('incoming_endpoint_boards.board_id', '=', 'automations.board_id'),
      'is not',
      null,
    ),
  ),
)

/** Active automations an accepted request to the endpoint starts: boards not in the trash, and on its allowlist. */
export const listeningToEndpoint = (q: Q, endpointId: string, allBoards: boolean) =>
  rowsOf(q, (allBoards ? listeningOnAllBoards : listeningOnAllowlist)(q, endpointId))

/** Whether the automation's creator may still act on its board: an owner or admin, or a member of the board. */
export async function creatorStillAllowed(q: Q, automation: Pick<AutomationsTable, 'board_id' | 'created_by'>): Promise<boolean> {
  if (!automation.created_by) return false
  const row = await q
    .selectFrom('users')
    .leftJoin('board_members', (j) => j.onRef('board_members.user_id', '=', 'users.id').on('board_members.board_id', '=', automation.board_id))
    .select(['users.role', 'board_members.user_id as member'])
    .where('users.id', '=', automation.created_by)
    .executeTakeFirst()
  return row !== undefined && roleSeesBoard(row.role, row.member !== null)
}

/**
 * Counts one more run of the automation in the minute starting at `windowAt` (a new minute starts the count again);
 * the count so far, this run included, or undefined when the automation is gone.
 */
export async function countRunInWindow(q: Q, id: string, windowAt: number): Promise<number | undefined> {
  const row = await q
    .updateTable('automations')
    .set((eb) => ({
      // Both read the row as it was: a count of another minute restarts at 1.
      run_window_count: eb
        .case()
        .when('run_window_at', '=', windowAt)
        .then(eb('run_window_count', '+', 1))
        .else(1)
        .end(),
      run_window_at: windowAt,
    }))
    .where('id', '=', id)
    .returning('run_window_count')
    .execute()
  return row[0]?.run_window_count
}

/**
 * Turns the automation off for a reason of taskd's own (it stays off until someone turns it on again); returns it as
 * paused, or undefined when it was not active.
 */
export const pauseAutomationRow = (
  q: Q,
  id: string,
  reason: NonNullable<AutomationsTable['paused_reason']>,
  at: string,
): Promise<AutomationsTable | undefined> =>
  q
    .updateTable('automations')
    .set({ active: 0, paused_reason: reason, next_run_at: null, updated_at: at })
    .where('id', '=', id)
    .where('active', '=', 1)
    .returningAll()
    .executeTakeFirst()

/** Active event automations of a board. */
const boardEventAutomations = fixedQuery((q: Q, boardId: string) =>
  q
    .selectFrom('automations')
    .select(['id', 'name', 'events', 'filter', 'steps'])
    .where('board_id', '=', boardId)
    .where('trigger_type', '=', literal('event'))
    .where('active', '=', literal(1)),
)
export const eventAutomationsOfBoard = (q: Q, boardId: string) => rowsOf(q, boardEventAutomations(q, boardId))

/** Active schedule automations whose slot has come, on boards not in the trash. */
export const dueSchedules = (q: Q, now: number, limit: number) =>
  q
    .selectFrom('automations')
    .innerJoin('boards', 'boards.id', 'automations.board_id')
    .selectAll('automations')
    .where('automations.next_run_at', '<=', now)
    .where('boards.trashed_at', 'is', null)
    .orderBy('automations.next_run_at')
    .limit(limit)
    .execute()
/** Moves a schedule on from the slot it was at; false when another process already did. */
export const advanceSchedule = async (q: Q, id: string, from: number, to: number | null): Promise<boolean> =>
  Number((await q.updateTable('automations').set({ next_run_at: to }).where('id', '=', id).where('next_run_at', '=', from).executeTakeFirst()).numUpdatedRows) >
  0
/** The next slot after `now` of a schedule on a board not in the trash (the ones dueSchedules takes). */
export const nextScheduleAfter = async (q: Q, now: number): Promise<number | undefined> =>
  (
    await q
      .selectFrom('automations')
      .innerJoin('boards', 'boards.id', 'automations.board_id')
      .select((eb) => eb.fn.min('automations.next_run_at').as('at'))
      .where('automations.next_run_at', '>', now)
      .where('boards.trashed_at', 'is', null)
      .executeTakeFirst()
  )?.at ?? undefined

export const insertRun = rowInsert('automation_runs', 'automation_id')
export const getRun = (q: Q, id: string) => q.selectFrom('automation_runs').selectAll().where('id', '=', id).executeTakeFirst()
export const runsQuery = (q: Q, automationId: string) => q.selectFrom('automation_runs').where('automation_id', '=', automationId)
/** The newest run of each automation. */
export async function lastRuns(q: Q, ids: readonly string[]): Promise<Map<string, AutomationRunsTable>> {
  if (ids.length === 0) return new Map()
  const rows = await q
    .selectFrom('automation_runs as r')
    .selectAll('r')
    .where('r.automation_id', 'in', [...ids])
    .where('r.seq', '=', (eb) =>
      eb
        .selectFrom('automation_runs as l')
        .select((e) => e.fn.max('l.seq').as('m'))
        .whereRef('l.automation_id', '=', 'r.automation_id'),
    )
    .execute()
  return new Map(rows.map((r) => [r.automation_id, r]))
}
/** Ids of the runs incoming requests started. */
export async function runsOfRequests(q: Q, requestIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  if (requestIds.length === 0) return out
  const rows = await q
    .selectFrom('automation_runs')
    .select(['id', 'request_id'])
    .where('request_id', 'in', [...requestIds])
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  for (const r of rows) out.set(r.request_id!, [...(out.get(r.request_id!) ?? []), r.id])
  return out
}

export const stepsOfRuns = async (q: Q, runIds: readonly string[]): Promise<AutomationRunStepsTable[]> =>
  runIds.length
    ? q
        .selectFrom('automation_run_steps')
        .selectAll()
        .where('run_id', 'in', [...runIds])
        .orderBy('run_id')
        .orderBy('idx')
        .execute()
    : []
export const insertRunStep = (q: Q, row: AutomationRunStepsTable) => q.insertInto('automation_run_steps').values(row).execute()

/** Runs due now (queued, or running under a lease that ran out: their process died), oldest due first. */
const dueRuns = (q: Q, now: number) =>
  q
    .selectFrom('automation_runs')
    .where('status', 'in', [literal('queued'), literal('running')]) // automation_runs_due's condition (schema.sql)
    .where('due_at', '<=', now)
    .where('lease_until', '<', now)
    .orderBy('due_at')

/** Whether a run is due: a plain read, so an idle poll never takes the write lock. */
export const anyDueRun = async (q: Q, now: number): Promise<boolean> => (await dueRuns(q, now).select('id').limit(1).executeTakeFirst()) !== undefined

/** Runs due now, leased to the caller; each claim is counted (MAX_CLAIMS in the runner). */
export async function claimRuns(q: Q, now: number, leaseUntil: number, limit: number): Promise<AutomationRunsTable[]> {
  const due = await skipLocked(q, dueRuns(q, now).selectAll().limit(limit)).execute()
  if (due.length === 0) return []
  await q
    .updateTable('automation_runs')
    .set((eb) => ({ lease_until: leaseUntil, status: 'running', claims: eb('claims', '+', 1) }))
    .where(
      'id',
      'in',
      due.map((r) => r.id),
    )
    .execute()
  return due.map((r) => ({ ...r, status: 'running', lease_until: leaseUntil, claims: r.claims + 1 }))
}
export const renewLease = (q: Q, id: string, leaseUntil: number) =>
  q.updateTable('automation_runs').set({ lease_until: leaseUntil }).where('id', '=', id).execute()
export const releaseRuns = async (q: Q, ids: readonly string[]) => {
  if (ids.length)
    await q
      .updateTable('automation_runs')
      .set((eb) => ({ lease_until: 0, claims: eb('claims', '-', 1) })) // handed back, not failed: the claim does not count
      .where('id', 'in', [...ids])
      .execute()
}
export const updateRunRow = (q: Q, id: string, set: Partial<AutomationRunsTable>) => q.updateTable('automation_runs').set(set).where('id', '=', id).execute()
/** Keeps the automation's newest RUNS_KEPT finished runs (unfinished ones always stay). */
export async function pruneRuns(q: Q, automationId: string): Promise<void> {
  const cutoff = q.selectFrom('automation_runs').select('seq').where('automation_id', '=', automationId).orderBy('seq', 'desc').limit(1).offset(RUNS_KEPT)
  await q
    .deleteFrom('automation_runs')
    .where('automation_id', '=', automationId)
    .where('status', 'in', ['succeeded', 'failed'])
    .where('seq', '<=', cutoff)
    .execute()
}

/**
 * Copies files of an incoming request onto a card (attachments) and answers the new files' ids. The chunks are copied
 * by the database (files/published.ts `copyFile`), never through memory here. A file the log has dropped since is skipped.
 */
export async function attachRequestFiles(q: Q, fileIds: readonly string[], cardId: string, at: string): Promise<string[]> {
  const byId = new Map((await getFiles(q, fileIds)).filter((f) => f.request_id !== null).map((f) => [f.id, f]))
  const made: string[] = []
  for (const from of fileIds.flatMap((id) => byId.get(id) ?? [])) {
    const id = newId()
    await copyFile(q, from, { id, card_id: cardId, note_id: null, request_id: null, created_by: null, created_at: at })
    made.push(id)
  }
  return made
}

/** How many runs have each status, for /metrics. */
export const runsByStatus = (db: Db) => countsByStatus(db, 'automation_runs')
