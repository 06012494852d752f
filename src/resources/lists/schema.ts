// Lists: a board's columns, each with a flow category.
import { z } from 'zod'
import { agrees } from '../../db/agrees.js'
import type { ListsTable } from '../../db/types.js'
import { name } from '../../http/schemas.js'

export const ListCategory = z.enum(['backlog', 'unstarted', 'started', 'completed', 'canceled'])
export type ListCategory = z.infer<typeof ListCategory>
agrees<ListCategory, ListsTable['category']>() // the CHECK of schema.sql, or the build fails

export const ListSchema = z
  .strictObject({
    id: z.string(),
    board: z.string(),
    name: z.string(),
    position: z.number(),
    category: ListCategory,
    status: z.string().nullable().meta({ description: 'The board status (record id) the list is bound to, whose category it has; null for none.' }),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'List' })
export type ListView = z.infer<typeof ListSchema>

const position = z.number().finite()
const status = z.string().min(1).nullable().meta({
  description:
    "A status (record id) of the list's board to bind the list to: the list takes its category (a `category` that differs is a 422) and follows it when it changes; null unbinds it.",
})
export const CreateListBody = z
  .strictObject({ board: z.string().min(1), name, category: ListCategory.optional(), position: position.optional(), status: status.optional() })
  .meta({ id: 'CreateListBody' })
export type CreateListInput = z.infer<typeof CreateListBody>
export const UpdateListBody = z
  .strictObject({
    name: name.optional(),
    position: position.optional(),
    category: ListCategory.optional().meta({
      description:
        "A change into `completed` completes the list's cards, one out of it re-opens them (each with its events); they stay in the list. A list bound to a status that no other list has takes the status along (the status gets the new category, with board_status.updated); a list sharing its status with others keeps the status's category (another is a 422).",
    }),
    status: status.optional(),
  })
  .meta({ id: 'UpdateListBody' })
export type UpdateListInput = z.infer<typeof UpdateListBody>
