// Agent runs and their activity in API shape (a page's agent names in one query).
import type { Q } from '../../db/database.js'
import type { AgentRunActivityTable, AgentRunsTable } from '../../db/types.js'
import { getUsers } from '../users/published.js'
import { ActivityEntrySchema, type ActivityEntryView, type AgentRunView } from './schema.js'
import { fromJsonColumn } from '../../db/json.js'

export async function runViews(q: Q, rows: readonly AgentRunsTable[]): Promise<AgentRunView[]> {
  const agents = new Map((await getUsers(q, [...new Set(rows.map((r) => r.agent_id))])).map((u) => [u.id, u]))
  return rows.map((r) => ({
    id: r.id,
    kickoff: r.kickoff_id,
    agent: { id: r.agent_id, name: agents.get(r.agent_id)?.name ?? '' },
    card: r.card_id,
    board: r.board_id,
    workflow: r.workflow_id,
    step: r.step === null ? null : { index: r.step, name: r.step_name ?? '' },
    status: r.status,
    summary: r.summary,
    error: r.error,
    last_activity_at: r.last_activity_at,
    created: r.created_at,
    finished_at: r.finished_at,
  }))
}

export const activityView = (r: AgentRunActivityTable): ActivityEntryView => ({
  id: r.id,
  type: r.type,
  text: r.text,
  by: fromJsonColumn(ActivityEntrySchema.shape.by, r.by_actor),
  at: r.at,
})
