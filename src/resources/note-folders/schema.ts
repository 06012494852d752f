// Note folders: a tree of folders for the notes of a board, or for someone's board-less notes.
import { z } from 'zod'
import { name, orNull, UserRef } from '../../http/schemas.js'

export const NoteFolderSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    parent: z.string().nullable().meta({ description: 'The folder it sits in; null at the top.' }),
    board: z
      .string()
      .nullable()
      .meta({ description: 'Its board (seen by the board members); null for a folder of board-less notes (seen by its creator, owners and admins).' }),
    created_by: orNull(UserRef),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'NoteFolder' })
export type NoteFolderView = z.infer<typeof NoteFolderSchema>

const id = z.string().min(1)
const parent = id.nullable().meta({ description: 'A folder the caller sees, on the same board (or board-less like this one); no cycles.' })

export const CreateNoteFolderBody = z
  .strictObject({
    name,
    parent: parent.optional(),
    board: id.nullable().optional().meta({ description: "A board the caller sees, or null for a board-less folder. Omitted: the parent's board, else none." }),
  })
  .meta({ id: 'CreateNoteFolderBody' })
export type CreateNoteFolderInput = z.infer<typeof CreateNoteFolderBody>
export const UpdateNoteFolderBody = z.strictObject({ name: name.optional(), parent: parent.optional() }).meta({ id: 'UpdateNoteFolderBody' })
export type UpdateNoteFolderInput = z.infer<typeof UpdateNoteFolderBody>
