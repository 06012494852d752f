// Milestones: a board's targets that cards count towards (`milestone` on a card).
import { z } from 'zod'
import { dateOrDateTime, name } from '../../http/schemas.js'

export const MilestoneState = z.enum(['open', 'closed'])

export const MilestoneSchema = z
  .strictObject({
    id: z.string(),
    board: z.string(),
    name: z.string(),
    description: z.string(),
    due_date: z.string().nullable(),
    state: MilestoneState,
    progress: z
      .strictObject({ done: z.number().int(), total: z.number().int() })
      .meta({ description: 'Completed and all cards of the milestone (cards in the trash are not counted).' }),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Milestone' })
export type MilestoneView = z.infer<typeof MilestoneSchema>

const description = z.string().max(20_000).meta({ description: 'Markdown, up to 20,000 characters.' })
const dueDate = dateOrDateTime.nullable().meta({ description: '`YYYY-MM-DD` or ISO 8601; null clears it.' })

export const CreateMilestoneBody = z
  .strictObject({
    board: z.string().min(1).meta({ description: 'The board (record id).' }),
    name: name.meta({ description: 'The milestone’s name, 1 to 200 characters.' }),
    description: description.optional(),
    due_date: dueDate.optional(),
    state: MilestoneState.optional().meta({ description: '`open` unless given.' }),
  })
  .meta({ id: 'CreateMilestoneBody', examples: [{ board: 'b_123', name: 'Beta', description: 'Everything the beta testers need.', due_date: '2026-12-15' }] })
export type CreateMilestoneInput = z.infer<typeof CreateMilestoneBody>

export const UpdateMilestoneBody = z
  .strictObject({
    name: name.optional().meta({ description: 'The milestone’s name, 1 to 200 characters.' }),
    description: description.optional(),
    due_date: dueDate.optional(),
    state: MilestoneState.optional().meta({ description: 'Closing a milestone changes none of its cards.' }),
  })
  .meta({ id: 'UpdateMilestoneBody', examples: [{ state: 'closed' }] })
export type UpdateMilestoneInput = z.infer<typeof UpdateMilestoneBody>
