// Agent workflow queries.
import type { Q } from '../../db/database.js'
import type { AgentWorkflowStepsTable } from '../../db/types.js'

export const getWorkflow = (q: Q, id: string) => q.selectFrom('agent_workflows').selectAll().where('id', '=', id).executeTakeFirst()
export const defaultWorkflowOf = (q: Q, boardId: string) =>
  q.selectFrom('agent_workflows').selectAll().where('board_id', '=', boardId).where('is_default', '=', 1).executeTakeFirst()
export const stepsOfWorkflow = (q: Q, workflowId: string): Promise<AgentWorkflowStepsTable[]> =>
  q.selectFrom('agent_workflow_steps').selectAll().where('workflow_id', '=', workflowId).orderBy('idx').execute()
