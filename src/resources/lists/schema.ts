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
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'List' })
export type ListView = z.infer<typeof ListSchema>

const position = z.number().finite()
export const CreateListBody = z
  .strictObject({ board: z.string().min(1), name, category: ListCategory.optional(), position: position.optional() })
  .meta({ id: 'CreateListBody' })
export type CreateListInput = z.infer<typeof CreateListBody>
export const UpdateListBody = z
  .strictObject({
    name: name.optional(),
    position: position.optional(),
    category: ListCategory.optional().meta({
      description: "A change into `completed` completes the list's cards, one out of it re-opens them (each with its events); they stay in the list.",
    }),
  })
  .meta({ id: 'UpdateListBody' })
export type UpdateListInput = z.infer<typeof UpdateListBody>
