// Note publications. Whoever may edit a note publishes it (publishing again refreshes the copy, keeping its URL),
// reads its publication and unpublishes it. The public URL shows the copy without a token until it is unpublished, its
// note is deleted, or while the note's board is in the trash.
import { type Actor, creatorId } from '../../access/roles.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { NotePublicationsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { notFound } from '../../errors.js'
import { newHookPath, newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { noteInSight, noteToChange } from '../notes/service.js'
import { expandNote, publicationViews } from './present.js'
import { NOTE_PUBLICATION_LIST } from './query.js'
import type { NotePublicationView, PublicNoteView } from './schema.js'
import {
  deletePublicationRow,
  getPublication,
  insertPublication,
  publicationOfNote,
  publishedCopy,
  updatePublicationRow,
  visiblePublicationsQuery,
} from './store.js'

/** A publication whose note the actor sees (and so may edit); 404 otherwise. */
async function visiblePublication(q: Q, actor: Actor, id: string): Promise<NotePublicationsTable> {
  const publication = await getPublication(q, id)
  if (!publication) throw notFound('note publication')
  await noteInSight(q, actor, publication.note_id, 'note publication')
  return publication
}

const viewsOf = (deps: Deps, q: Q, rows: readonly NotePublicationsTable[]) => publicationViews(q, deps.config, rows)

export function listNotePublications(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, visiblePublicationsQuery(q, actor.user), NOTE_PUBLICATION_LIST, params, async (rows: NotePublicationsTable[], expand) =>
    expandNote(q, await viewsOf(deps, q, rows), expand),
  )
}

export async function getNotePublicationFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  const row = await visiblePublication(q, actor, id)
  return (await expandNote(q, await viewsOf(deps, q, [row]), parseExpand(expand, NOTE_PUBLICATION_LIST.expand)))[0]
}

/** Publishes a note, or refreshes its published copy (`created` false: same slug and URL). */
export const publishNote = (deps: Deps, actor: Actor, noteId: string): Promise<{ created: boolean; publication: NotePublicationView }> =>
  deps.db.tx(async ({ q }) => {
    // The note stays locked until the commit, so two first publications at once make one.
    const note = await noteToChange(q, actor, noteId)
    const at = isoAt(deps.clock.now())
    const existing = await publicationOfNote(q, note.id)
    if (existing) await updatePublicationRow(q, existing.id, { title: note.title, body: note.body, updated_at: at })
    else {
      await insertPublication(q, {
        id: newId(),
        note_id: note.id,
        slug: newHookPath(),
        title: note.title,
        body: note.body,
        created_by: creatorId(actor),
        created_at: at,
        updated_at: at,
      })
    }
    return { created: !existing, publication: (await viewsOf(deps, q, [(await publicationOfNote(q, note.id))!]))[0] }
  })

/** Unpublishes: the public URL answers 404 from the commit on. */
export const unpublishNote = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    const publication = await visiblePublication(q, actor, id)
    await noteToChange(q, actor, publication.note_id) // locked, as publishNote locks it: the two take turns
    await deletePublicationRow(q, id)
  })

/** The published copy at a slug, as the public URL shows it; undefined for an unknown slug. */
export async function publicNote(deps: Deps, slug: string): Promise<PublicNoteView | undefined> {
  // Slugs are base62: anything else (a NUL, which PostgreSQL's text cannot hold) names nothing, without a query.
  if (!/^[0-9A-Za-z]{1,100}$/.test(slug)) return undefined
  const row = await publishedCopy(deps.db.q, slug)
  return row && { title: row.title, body: row.body, published: row.created_at, updated: row.updated_at }
}
