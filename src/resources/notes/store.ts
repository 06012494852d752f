// Note queries.
import { notesInSightOf } from '../../access/records.js'
import type { Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { forUpdate } from '../../db/dialect.js'
import type { NotesTable } from '../../db/types.js'

const noteById = (q: Q, id: string) => q.selectFrom('notes').selectAll().where('id', '=', id)
export const getNote = (q: Q, id: string) => noteById(q, id).executeTakeFirst()
/** A note locked until the transaction ends (see forUpdate): changes to it take turns. */
export const lockNote = (q: Q, id: string) => forUpdate(q, noteById(q, id)).executeTakeFirst()
export const insertNote = (q: Q, row: NotesTable) => q.insertInto('notes').values(row).execute()
export const updateNoteRow = (q: Q, id: string, set: Partial<NotesTable>) => q.updateTable('notes').set(set).where('id', '=', id).execute()
/** Deletes a note; the schema deletes its publication. */
export const deleteNoteRow = (q: Q, id: string) => q.deleteFrom('notes').where('id', '=', id).execute()

/** Base query of the note list: the notes the viewer sees. */
export const visibleNotesQuery = (q: Q, viewer: Viewer) => q.selectFrom('notes').where(notesInSightOf(q, viewer, 'notes'))
