// Notes: Markdown pages on a board (and maybe a card of it), or board-less ones of their author, filed in folders.
import { z } from 'zod'
import { orNull, UserRef } from '../../http/schemas.js'

export const NoteSchema = z
  .strictObject({
    id: z.string(),
    title: z.string(),
    body: z.string().meta({ description: 'Markdown.' }),
    folder: z.string().nullable(),
    board: z.string().nullable().meta({ description: 'Null: a board-less note, seen by its author, owners and admins.' }),
    card: z.string().nullable().meta({ description: 'The card it belongs to, on its board.' }),
    created_by: orNull(UserRef),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Note' })
export type NoteView = z.infer<typeof NoteSchema>

const id = z.string().min(1)
const title = z.string().trim().min(1, 'Must not be empty.').max(500, 'At most 500 characters.').meta({ description: 'The title, 1 to 500 characters.' })
const body = z.string().max(1_000_000, 'At most 1,000,000 characters.').meta({ description: 'Markdown, up to 1,000,000 characters.' })
const folder = id.nullable().meta({ description: "A folder the caller sees, on the note's board (board-less for a board-less note); null: none." })
const board = id.nullable().meta({
  description: 'A board the caller sees, or null for a board-less note. A note moved to another board leaves its card and folder unless they are given.',
})
const card = id.nullable().meta({ description: "A card the caller sees; the note goes on the card's board (a different `board` is a 422)." })

export const CreateNoteBody = z
  .strictObject({ title, body: body.default(''), folder: folder.optional(), board: board.optional(), card: card.optional() })
  .meta({ id: 'CreateNoteBody' })
export type CreateNoteInput = z.infer<typeof CreateNoteBody>
export const UpdateNoteBody = z
  .strictObject({ title: title.optional(), body: body.optional(), folder: folder.optional(), board: board.optional(), card: card.optional() })
  .meta({ id: 'UpdateNoteBody' })
export type UpdateNoteInput = z.infer<typeof UpdateNoteBody>

export const BulkUpdateNotesBody = z
  .strictObject({
    notes: z.array(id).min(1).max(500).meta({ description: 'Note ids, at most 500.' }),
    folder: folder.optional(),
    board: board.optional(),
  })
  .refine((b) => b.folder !== undefined || b.board !== undefined, 'Give folder, board or both.')
  .meta({ id: 'BulkUpdateNotesBody' })
