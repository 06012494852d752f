// Agent workflows in API shape (a page's steps and names in three queries).
import type { Q } from '../../db/database.js'
import type { AgentWorkflowsTable } from '../../db/types.js'
import { creatorsOf, userRefsOf } from '../users/present.js'
import type { AgentWorkflowView } from './schema.js'
import { stepsOfWorkflows } from './store.js'

export async function workflowViews(q: Q, rows: readonly AgentWorkflowsTable[]): Promise<AgentWorkflowView[]> {
  const steps = await stepsOfWorkflows(
    q,
    rows.map((r) => r.id),
  )
  const agents = await userRefsOf(
    q,
    steps.map((s) => s.agent_id),
  )
  const creators = await creatorsOf(q, rows)
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    board: r.board_id,
    default: r.is_default === 1,
    steps: steps
      .filter((s) => s.workflow_id === r.id)
      .map((s) => ({
        index: s.idx,
        name: s.name,
        agent: agents(s.agent_id),
        launch_url: s.launch_url,
        signing_secret: s.signing_secret_id,
        instructions: s.instructions,
      })),
    created_by: creators(r.created_by),
    created: r.created_at,
    updated: r.updated_at,
  }))
}
