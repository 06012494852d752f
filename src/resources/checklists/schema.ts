// Checklists on tasks: a titled, ordered list of items to tick.
import { z } from 'zod'
import { orNull, UserRef } from '../../http/schemas.js'

export const MAX_CHECKLISTS_PER_CARD = 100
export const MAX_ITEMS_PER_CHECKLIST = 500

export const ChecklistItemSchema = z
  .strictObject({
    id: z.string(),
    text: z.string(),
    completed: z.boolean(),
    completed_at: z.string().nullable(),
    completed_by: orNull(UserRef).meta({ description: 'Who ticked it; null while unticked, or when an automation ticked it.' }),
    position: z.number().meta({ description: 'Order within the checklist.' }),
  })
  .meta({ id: 'ChecklistItem' })
export type ChecklistItemView = z.infer<typeof ChecklistItemSchema>

export const ChecklistSchema = z
  .strictObject({
    id: z.string(),
    card: z.string(),
    title: z.string(),
    position: z.number().meta({ description: "Order among the card's checklists." }),
    items: z.array(ChecklistItemSchema).meta({ description: 'In position order.' }),
    created_by: orNull(UserRef),
    created: z.string(),
    updated: z.string().meta({ description: 'Also changes when an item is added, changed or deleted.' }),
  })
  .meta({ id: 'Checklist' })
export type ChecklistView = z.infer<typeof ChecklistSchema>

const title = z.string().trim().min(1, 'Must not be empty.').max(500, 'At most 500 characters.')
const text = z.string().trim().min(1, 'Must not be empty.').max(2000, 'At most 2,000 characters.')
const position = z.number().meta({ description: 'Where it goes; a taken position moves the others along. Omitted: at the end.' })

export const CreateChecklistBody = z
  .strictObject({
    card: z.string().min(1),
    title,
    items: z
      .array(text)
      .max(MAX_ITEMS_PER_CHECKLIST, `At most ${MAX_ITEMS_PER_CHECKLIST} items.`)
      .optional()
      .meta({ description: 'Texts of the first items, in order.' }),
  })
  .meta({ id: 'CreateChecklistBody' })
export type CreateChecklistInput = z.infer<typeof CreateChecklistBody>
export const UpdateChecklistBody = z.strictObject({ title: title.optional(), position: position.optional() }).meta({ id: 'UpdateChecklistBody' })
export type UpdateChecklistInput = z.infer<typeof UpdateChecklistBody>

export const CreateChecklistItemBody = z.strictObject({ text, position: position.optional() }).meta({ id: 'CreateChecklistItemBody' })
export type CreateChecklistItemInput = z.infer<typeof CreateChecklistItemBody>
export const UpdateChecklistItemBody = z
  .strictObject({
    text: text.optional(),
    completed: z.boolean().optional().meta({ description: 'Tick (true) or untick (false).' }),
    position: position.optional(),
  })
  .meta({ id: 'UpdateChecklistItemBody' })
export type UpdateChecklistItemInput = z.infer<typeof UpdateChecklistItemBody>

export const itemParams = z.object({ id: z.string().min(1), item: z.string().min(1) })
