// Note publication queries.
import { notesInSightOf } from '../../access/records.js'
import type { Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { NotePublicationsTable } from '../../db/types.js'

export const getPublication = (q: Q, id: string) => q.selectFrom('note_publications').selectAll().where('id', '=', id).executeTakeFirst()
export const publicationOfNote = (q: Q, noteId: string) => q.selectFrom('note_publications').selectAll().where('note_id', '=', noteId).executeTakeFirst()
export const insertPublication = (q: Q, row: NotePublicationsTable) => q.insertInto('note_publications').values(row).execute()
export const updatePublicationRow = (q: Q, id: string, set: Partial<NotePublicationsTable>) =>
  q.updateTable('note_publications').set(set).where('id', '=', id).execute()
export const deletePublicationRow = (q: Q, id: string) => q.deleteFrom('note_publications').where('id', '=', id).execute()

/** Base query of the publication list: the publications of the notes the viewer sees. */
export const visiblePublicationsQuery = (q: Q, viewer: Viewer) =>
  q
    .selectFrom('note_publications')
    .innerJoin('notes', 'notes.id', 'note_publications.note_id')
    .where(notesInSightOf(q, viewer, 'notes'))

/** The published copy a slug names, unless its note's board is in the trash. */
export const publishedCopy = (q: Q, slug: string) =>
  q
    .selectFrom('note_publications')
    .innerJoin('notes', 'notes.id', 'note_publications.note_id')
    .leftJoin('boards', 'boards.id', 'notes.board_id')
    .select(['note_publications.title', 'note_publications.body', 'note_publications.created_at', 'note_publications.updated_at'])
    .where('note_publications.slug', '=', slug)
    .where('boards.trashed_at', 'is', null)
    .executeTakeFirst()
