// Agent runs: an agent's work on one card, from its kickoff to completion, with the activity it reports.
import { z } from 'zod'
import { agrees } from '../../db/agrees.js'
import type { AgentRunsTable } from '../../db/types.js'
import { orNull, UserRef } from '../../http/schemas.js'

export const RUN_STATUSES = ['pending', 'running', 'needs_input', 'blocked', 'stalled', 'done_proposed', 'completed', 'failed', 'cancelled'] as const
export const AgentRunStatus = z.enum(RUN_STATUSES)
export type AgentRunStatus = z.infer<typeof AgentRunStatus>
agrees<AgentRunStatus, AgentRunsTable['status']>() // the CHECK of schema.sql, or the build fails
/** A run in one of these has ended: nothing changes it any more. */
export const FINISHED: readonly AgentRunStatus[] = ['completed', 'failed', 'cancelled']

/** The run list's own query parameters (filter, sort and paging come on top). */
export const RunListQuery = z.object({
  status: AgentRunStatus.optional(),
  agent: z.string().optional().meta({ description: 'Only runs of this agent.' }),
  card: z.string().optional().meta({ description: 'Only runs on this card.' }),
})
export type RunListParams = z.infer<typeof RunListQuery>

/** A step of a workflow, as kickoffs and runs name it. */
export const StepRef = z.strictObject({ index: z.number().int().meta({ description: '1-based' }), name: z.string() }).meta({ id: 'AgentStepRef' })

export const AgentRunSchema = z
  .strictObject({
    id: z.string(),
    kickoff: z.string(),
    agent: UserRef,
    card: z.string(),
    board: z.string(),
    workflow: z.string().nullable(),
    step: orNull(StepRef),
    status: AgentRunStatus,
    summary: z.string().nullable().meta({ description: 'What the agent said it did, in its last done proposal.' }),
    error: z.string().nullable().meta({ description: 'Why the run failed.' }),
    last_activity_at: z.string(),
    created: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'AgentRun' })
export type AgentRunView = z.infer<typeof AgentRunSchema>

export const ACTIVITY_TYPES = ['started', 'heartbeat', 'blocked', 'done_proposed', 'completed', 'failed', 'handoff'] as const
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0, 'Must not be empty.')
export const ActivityBody = z
  .strictObject({
    type: z.enum(ACTIVITY_TYPES),
    message: text(20_000).optional(),
    reason: text(20_000).optional().meta({ description: 'blocked: why (required).' }),
    summary: text(20_000).optional().meta({ description: 'done_proposed: what the agent did (required).' }),
    error: text(20_000).optional().meta({ description: 'failed: why (required).' }),
    to_step: z
      .union([z.number().int().min(1), z.string().min(1).max(200)])
      .optional()
      .meta({ description: 'handoff: the workflow step to hand over to, by 1-based index or name (default: the next step).' }),
  })
  .superRefine((b, ctx) => {
    const need = ({ blocked: 'reason', done_proposed: 'summary', failed: 'error' } as const)[b.type as 'blocked' | 'done_proposed' | 'failed']
    if (need && b[need] === undefined) ctx.addIssue({ code: 'custom', path: [need], message: `Required for ${b.type}.` })
    if (b.to_step !== undefined && b.type !== 'handoff') ctx.addIssue({ code: 'custom', path: ['to_step'], message: 'Only for handoff.' })
  })
  .meta({ id: 'AgentActivityBody' })
export type ActivityInput = z.infer<typeof ActivityBody>

export const ActivityEntrySchema = z
  .strictObject({
    id: z.string(),
    type: z.string().meta({
      description:
        'What the agent reported (started, heartbeat, blocked, done_proposed, completed, failed, handoff) or what happened to the run (delivered, expired, stalled, approved, returned, cancelled, question, answered, dismissed).',
    }),
    text: z.string().nullable().meta({ description: 'The message, reason, summary, error, feedback, question or answer.' }),
    by: z.strictObject({ id: z.string(), name: z.string(), kind: z.string() }),
    at: z.string(),
  })
  .meta({ id: 'AgentActivity' })
export type ActivityEntryView = z.infer<typeof ActivityEntrySchema>

export const ReturnBody = z.strictObject({ feedback: text(20_000) }).meta({ id: 'ReturnAgentRunBody' })
