// Agent workflows: ordered steps on a board, each handing the card to an agent; one default per board.
import { z } from 'zod'
import { name, UserRef } from '../../http/schemas.js'
import { orNull } from '../../http/schemas.js'

export const WorkflowStepSchema = z
  .strictObject({
    index: z.number().int().meta({ description: '1-based' }),
    name: z.string(),
    agent: UserRef,
    launch_url: z.string().nullable(),
    signing_secret: z.string().nullable(),
    instructions: z.string().nullable(),
  })
  .meta({ id: 'AgentWorkflowStep' })

export const AgentWorkflowSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    board: z.string(),
    default: z.boolean(),
    steps: z.array(WorkflowStepSchema),
    created_by: orNull(UserRef),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'AgentWorkflow' })
export type AgentWorkflowView = z.infer<typeof AgentWorkflowSchema>

const StepBody = z.strictObject({
  name,
  agent: z.string().min(1).meta({ description: 'An agent that is a member of the board.' }),
  launch_url: z.string().min(1).max(2048).optional().meta({ description: 'auto_start calls this instead of the agent’s wake URL.' }),
  signing_secret: z.string().min(1).optional().meta({ description: 'Signs the calls to launch_url (owners and admins only).' }),
  instructions: z.string().max(20_000).optional(),
})
const steps = z.array(StepBody).min(1, 'At least one step.').max(20, 'At most 20 steps.')

export const CreateWorkflowBody = z
  .strictObject({ name, board: z.string().min(1), default: z.boolean().default(false), steps })
  .meta({ id: 'CreateAgentWorkflowBody' })
export type CreateWorkflowInput = z.infer<typeof CreateWorkflowBody>
export const UpdateWorkflowBody = z
  .strictObject({ name: name.optional(), default: z.boolean().optional(), steps: steps.optional() })
  .meta({ id: 'UpdateAgentWorkflowBody' })
export type UpdateWorkflowInput = z.infer<typeof UpdateWorkflowBody>
export type WorkflowStepInput = z.infer<typeof StepBody>
