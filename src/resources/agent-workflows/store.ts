// Agent workflow queries.
import type { Q } from '../../db/database.js'
import { literal } from '../../db/sql.js'
import { type Viewer, visibleBoardIds } from '../../access/visibility.js'
import type { AgentWorkflowStepsTable, AgentWorkflowsTable } from '../../db/types.js'

export const getWorkflow = (q: Q, id: string) => q.selectFrom('agent_workflows').selectAll().where('id', '=', id).executeTakeFirst()
export const defaultWorkflowOf = (q: Q, boardId: string) =>
  q.selectFrom('agent_workflows').selectAll().where('board_id', '=', boardId).where('is_default', '=', literal(1)).executeTakeFirst()
export const stepsOfWorkflow = (q: Q, workflowId: string): Promise<AgentWorkflowStepsTable[]> =>
  q.selectFrom('agent_workflow_steps').selectAll().where('workflow_id', '=', workflowId).orderBy('idx').execute()
export const insertWorkflow = (q: Q, row: AgentWorkflowsTable) => q.insertInto('agent_workflows').values(row).execute()
export const updateWorkflowRow = (q: Q, id: string, set: Partial<AgentWorkflowsTable>) =>
  q.updateTable('agent_workflows').set(set).where('id', '=', id).execute()
export const deleteWorkflowRow = (q: Q, id: string) => q.deleteFrom('agent_workflows').where('id', '=', id).execute()
/** Makes no workflow of the board its default (before another becomes it). */
export const clearDefault = (q: Q, boardId: string) =>
  q.updateTable('agent_workflows').set({ is_default: 0 }).where('board_id', '=', boardId).where('is_default', '=', literal(1)).execute()
export async function setWorkflowSteps(q: Q, workflowId: string, rows: AgentWorkflowStepsTable[]): Promise<void> {
  await q.deleteFrom('agent_workflow_steps').where('workflow_id', '=', workflowId).execute()
  await q.insertInto('agent_workflow_steps').values(rows).execute()
}
export const stepsOfWorkflows = (q: Q, ids: readonly string[]): Promise<AgentWorkflowStepsTable[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('agent_workflow_steps')
        .selectAll()
        .where('workflow_id', 'in', [...ids])
        .orderBy('idx')
        .execute()
/** Base of the list: workflows of the boards the viewer sees, optionally of one board. */
export const visibleWorkflowsQuery = (q: Q, viewer: Viewer, board?: string) => {
  const query = q.selectFrom('agent_workflows').where('agent_workflows.board_id', 'in', visibleBoardIds(q, viewer))
  return board ? query.where('agent_workflows.board_id', '=', board) : query
}
