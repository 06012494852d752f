// Notes in API shape (their authors in one query per page), and `expand=folder,board,card`.
import type { Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { rowsByIds } from '../../db/sql.js'
import type { NotesTable } from '../../db/types.js'
import { cardViews } from '../cards/present.js'
import type { CardView } from '../cards/schema.js'
import { boardsById, expanded, foldersById, viewsById } from '../note-folders/present.js'
import { creatorsOf } from '../users/present.js'
import type { NoteView } from './schema.js'

export async function noteViews(q: Q, rows: readonly NotesTable[]): Promise<NoteView[]> {
  const creator = await creatorsOf(q, rows)
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    body: r.body,
    folder: r.folder_id,
    board: r.board_id,
    card: r.card_id,
    created_by: creator(r.created_by),
    created: r.created_at,
    updated: r.updated_at,
  }))
}

export async function expandNotes(q: Q, viewer: Viewer, views: NoteView[], expand: ReadonlySet<string>) {
  if (expand.size === 0) return views
  const folders = expand.has('folder')
    ? await foldersById(
        q,
        viewer,
        views.map((v) => v.folder),
      )
    : undefined
  const boards = expand.has('board')
    ? await boardsById(
        q,
        views.map((v) => v.board),
      )
    : undefined
  const cards = expand.has('card')
    ? await viewsById(
        views.map((v) => v.card),
        async (ids) => cardViews(q, await rowsByIds(q, 'cards', ids)),
      )
    : undefined
  // A card shows while it is on its note's board: one moved to another board since may be out of the viewer's sight.
  const cardOf = (v: NoteView, byId: ReadonlyMap<string, CardView>) => {
    const card = expanded(byId, v.card)
    return card?.board === v.board ? card : null
  }
  return views.map((v) => ({
    ...v,
    expand: {
      ...(folders && { folder: expanded(folders, v.folder) }),
      ...(boards && { board: expanded(boards, v.board) }),
      ...(cards && { card: cardOf(v, cards) }),
    },
  }))
}
