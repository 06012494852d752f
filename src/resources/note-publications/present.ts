// Note publications in API shape (their publishers in one query per page), and `expand=note`.
import { type Config, publicBaseUrl } from '../../config.js'
import type { Q } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { NotePublicationsTable } from '../../db/types.js'
import { noteViews } from '../notes/present.js'
import { creatorsOf } from '../users/present.js'
import type { NotePublicationView } from './schema.js'

const publicUrl = (config: Config, slug: string): string => `${publicBaseUrl(config)}/v1/note-publications/public/${slug}`

export async function publicationViews(q: Q, config: Config, rows: readonly NotePublicationsTable[]): Promise<NotePublicationView[]> {
  const creator = await creatorsOf(q, rows)
  return rows.map((r) => ({
    id: r.id,
    note: r.note_id,
    slug: r.slug,
    url: publicUrl(config, r.slug),
    title: r.title,
    created_by: creator(r.created_by),
    created: r.created_at,
    updated: r.updated_at,
  }))
}

/** `expand=note` on a page of publications (of notes the viewer sees). */
export async function expandNote(q: Q, views: NotePublicationView[], expand: ReadonlySet<string>) {
  if (!expand.has('note')) return views
  const notes = new Map(
    (
      await noteViews(
        q,
        await rowsByIds(
          q,
          'notes',
          views.map((v) => v.note),
        ),
      )
    ).map((n) => [n.id, n]),
  )
  return views.map((v) => ({ ...v, expand: { note: notes.get(v.note)! } }))
}
