// Agent run and activity queries.
import { type Viewer, visibleBoardIds } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { forUpdate } from '../../db/dialect.js'
import { literal, rowInsert } from '../../db/sql.js'
import type { AgentRunsTable } from '../../db/types.js'
import type { RunListParams } from './schema.js'

export const getRun = (q: Q, id: string) => q.selectFrom('agent_runs').selectAll().where('id', '=', id).executeTakeFirst()
/** The run, its row locked until the transaction ends (PostgreSQL), so two changes of one run take turns. */
export const lockRun = (q: Q, id: string) => forUpdate(q, q.selectFrom('agent_runs').selectAll().where('id', '=', id)).executeTakeFirst()
export const insertRun = (q: Q, row: AgentRunsTable) => q.insertInto('agent_runs').values(row).execute()
export const updateRunRow = (q: Q, id: string, set: Partial<AgentRunsTable>) => q.updateTable('agent_runs').set(set).where('id', '=', id).execute()

/** The runs of these cards, newest first (`expand=agent_runs`). */
export const runsOfCards = (q: Q, cardIds: readonly string[]): Promise<AgentRunsTable[]> =>
  cardIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('agent_runs')
        .selectAll()
        .where('card_id', 'in', [...cardIds])
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .execute()

/** Base of the run list: runs on the boards the viewer sees, narrowed by the plain parameters. */
export function visibleRunsQuery(q: Q, viewer: Viewer, params: RunListParams) {
  let query = q.selectFrom('agent_runs').where('agent_runs.board_id', 'in', visibleBoardIds(q, viewer))
  if (params.status) query = query.where('agent_runs.status', '=', params.status)
  if (params.agent) query = query.where('agent_runs.agent_id', '=', params.agent)
  if (params.card) query = query.where('agent_runs.card_id', '=', params.card)
  return query
}

/** Running runs whose last activity is older than `before` (ISO): the stall sweep. */
export const quietRuns = (q: Q, before: string, limit: number) =>
  q
    .selectFrom('agent_runs')
    .select('id')
    .where('status', '=', literal('running'))
    .where('last_activity_at', '<', before)
    .orderBy('last_activity_at')
    .limit(limit)
    .execute()

export const insertActivity = rowInsert('agent_run_activity', 'run_id')
export const activityQuery = (q: Q, runId: string) => q.selectFrom('agent_run_activity').where('agent_run_activity.run_id', '=', runId)

/** A card moved to another board takes its agent runs, kickoffs and questions along (their board decides who sees them). */
export async function moveAgentRecords(q: Q, cardId: string, boardId: string): Promise<void> {
  for (const table of ['agent_runs', 'agent_kickoffs', 'agent_questions'] as const)
    await q.updateTable(table).set({ board_id: boardId }).where('card_id', '=', cardId).execute()
}
