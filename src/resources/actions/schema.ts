// Bulk card operations ({ cards: [ids], ... } → { updated, failed }) and the workspace export.
import { z } from 'zod'
import { dateOrDateTime } from '../../http/schemas.js'
import { XattrValuesInput } from '../xattr/schema.js'

const cards = z.array(z.string().min(1)).min(1).max(500).meta({ description: 'Card ids, at most 500.' })
const idList = z.array(z.string().min(1)).max(100)
const priority = z.number().int().min(0).max(4)

export const BulkResult = z
  .strictObject({
    updated: z.number().int(),
    failed: z.array(z.strictObject({ id: z.string(), error: z.strictObject({ code: z.string(), message: z.string() }) })),
  })
  .meta({ id: 'BulkResult' })
export type BulkResult = z.infer<typeof BulkResult>

export const BulkUpdateBody = z
  .strictObject({
    cards,
    set: z.strictObject({
      title: z.string().trim().min(1).max(500).optional(),
      description: z.string().max(100_000).optional(),
      priority: priority.optional(),
      start_date: dateOrDateTime.nullable().optional(),
      due_date: dateOrDateTime.nullable().optional(),
      completed: z.boolean().optional(),
      archived: z.boolean().optional(),
      trashed: z.boolean().optional(),
      parent: z.string().min(1).nullable().optional().meta({ description: 'The parent card (record id) of each card, or null to remove it.' }),
      status: z.string().min(1).optional().meta({ description: "A status of each card's board: the card goes to the board's first list bound to it." }),
      milestone: z.string().min(1).nullable().optional().meta({ description: "A milestone of each card's board, or null for none." }),
      xattr: XattrValuesInput.optional(),
    }),
  })
  .meta({ id: 'BulkUpdateCardsBody' })
export const BulkMoveBody = z.strictObject({ cards, list: z.string().min(1), board: z.string().min(1).optional() }).meta({ id: 'BulkMoveCardsBody' })
export const BulkCompleteBody = z.strictObject({ cards, completed: z.boolean() }).meta({ id: 'BulkCompleteCardsBody' })
export const BulkArchiveBody = z.strictObject({ cards, archived: z.boolean() }).meta({ id: 'BulkArchiveCardsBody' })
export const BulkPriorityBody = z.strictObject({ cards, priority: priority.nullable() }).meta({ id: 'BulkSetPriorityBody' })
export const BulkMembersBody = z.strictObject({ cards, add: idList.default([]), remove: idList.default([]) }).meta({ id: 'BulkManageMembersBody' })
export const BulkTagsBody = z.strictObject({ cards, add: idList.default([]), remove: idList.default([]) }).meta({ id: 'BulkManageTagsBody' })

export const WorkspaceExport = z.object({ exported_at: z.string() }).catchall(z.array(z.unknown())).meta({ id: 'WorkspaceExport' })
