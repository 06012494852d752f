// Files in API shape, batch-loaded for a page, and the expansions of a page (its cards and notes).
import type { Q } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { FilesTable } from '../../db/types.js'
import { cardViews } from '../cards/present.js'
import type { CardView } from '../cards/schema.js'
import { noteViews } from '../notes/present.js'
import type { NoteView } from '../notes/schema.js'
import { creatorsOf } from '../users/present.js'
import type { FileView } from './schema.js'

export async function fileViews(q: Q, rows: readonly FilesTable[]): Promise<FileView[]> {
  const creator = await creatorsOf(q, rows)
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    size: Number(r.size),
    content_type: r.content_type,
    sha256: r.sha256,
    card: r.card_id,
    note: r.note_id,
    created_by: creator(r.created_by),
    created: r.created_at,
  }))
}

export type ExpandedFile = FileView & { expand?: { card?: CardView | null; note?: NoteView | null } }

/** `expand=card,note`: the card or note of each file of the page (null for a file on the other kind), one load each. */
export async function expandFiles(q: Q, views: FileView[], expand: ReadonlySet<string>): Promise<ExpandedFile[]> {
  if (expand.size === 0) return views
  const ids = (key: 'card' | 'note') => [...new Set(views.flatMap((v) => (v[key] ? [v[key]] : [])))]
  const cards = expand.has('card') ? new Map((await cardViews(q, await rowsByIds(q, 'cards', ids('card')))).map((c) => [c.id, c])) : undefined
  const notes = expand.has('note') ? new Map((await noteViews(q, await rowsByIds(q, 'notes', ids('note')))).map((n) => [n.id, n])) : undefined
  return views.map((v) => ({
    ...v,
    expand: {
      ...(cards && { card: v.card ? (cards.get(v.card) ?? null) : null }),
      ...(notes && { note: v.note ? (notes.get(v.note) ?? null) : null }),
    },
  }))
}
