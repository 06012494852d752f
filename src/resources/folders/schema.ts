// Folders of boards: workspace-wide, nested at most MAX_FOLDER_DEPTH deep.
import { z } from 'zod'
import { name } from '../../http/schemas.js'

/** A folder at the top is at depth 1; one inside it at 2; ... */
export const MAX_FOLDER_DEPTH = 5

export const FolderSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    parent: z.string().nullable().meta({ description: 'The folder it is in; null at the top.' }),
    position: z.number().meta({ description: 'Order among the folders of the same parent, ascending.' }),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Folder' })
export type FolderView = z.infer<typeof FolderSchema>

const position = z.number().finite()
const parent = z
  .string()
  .min(1)
  .nullable()
  .meta({ description: `The folder to put it in (record id), or null for the top. Folders nest at most ${MAX_FOLDER_DEPTH} deep, and never in themselves.` })

export const CreateFolderBody = z
  .strictObject({ name, parent: parent.optional(), position: position.optional().meta({ description: 'Default: after the last of its parent.' }) })
  .meta({ id: 'CreateFolderBody', examples: [{ name: 'Marketing', parent: null }] })
export type CreateFolderInput = z.infer<typeof CreateFolderBody>

export const UpdateFolderBody = z
  .strictObject({ name: name.optional(), parent: parent.optional(), position: position.optional() })
  .meta({ id: 'UpdateFolderBody', examples: [{ name: 'Campaigns', parent: 'f_123' }] })
export type UpdateFolderInput = z.infer<typeof UpdateFolderBody>
