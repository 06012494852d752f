// Board statuses: a board's workflow states. A list bound to one takes its category; a card's status is its list's.
import { z } from 'zod'
import { name } from '../../http/schemas.js'
import { ListCategory } from '../lists/schema.js'

export const BoardStatusSchema = z
  .strictObject({
    id: z.string(),
    board: z.string(),
    name: z.string(),
    category: ListCategory.meta({ description: 'The category every list bound to the status has.' }),
    color: z.string().nullable(),
    position: z.number(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'BoardStatus' })
export type BoardStatusView = z.infer<typeof BoardStatusSchema>

const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'Must be a hex color like #ff8800.')
  .nullable()
const position = z.number().finite()

export const CreateBoardStatusBody = z
  .strictObject({
    board: z.string().min(1).meta({ description: 'The board (record id).' }),
    name: name.meta({ description: 'Unique on the board, whatever the case.' }),
    category: ListCategory.meta({ description: 'backlog, unstarted, started, completed or canceled.' }),
    color: color.optional(),
    position: position.optional().meta({ description: "Order among the board's statuses; default: after the last." }),
  })
  .meta({ id: 'CreateBoardStatusBody', examples: [{ board: 'b_123', name: 'In review', category: 'started', color: '#8844ff' }] })
export type CreateBoardStatusInput = z.infer<typeof CreateBoardStatusBody>

export const UpdateBoardStatusBody = z
  .strictObject({
    name: name.optional(),
    category: ListCategory.optional().meta({
      description:
        'The lists bound to the status take the new category, and their cards follow the completion rule: into `completed` completes them, out of it re-opens them (each with its events); they stay in their lists.',
    }),
    color: color.optional(),
    position: position.optional(),
  })
  .meta({ id: 'UpdateBoardStatusBody', examples: [{ name: 'Review', category: 'started' }] })
export type UpdateBoardStatusInput = z.infer<typeof UpdateBoardStatusBody>

export const DeleteBoardStatusQuery = z.object({
  move_to: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Another status of the same board: the lists bound to this one are bound to it (and take its category) first.' }),
})

/** A card's status as every card view shows it. */
export const CardStatusSchema = z
  .strictObject({ id: z.string(), name: z.string(), category: ListCategory })
  .meta({ id: 'CardStatus', description: "The status of the card's list; null when the list is bound to none." })
export type CardStatus = z.infer<typeof CardStatusSchema>
