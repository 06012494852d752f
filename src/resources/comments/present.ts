// Comments in API shape (a page's mentions and authors' current names in two queries), and the `data` of comment events.
import type { Q } from '../../db/database.js'
import type { CommentsTable } from '../../db/types.js'
import { getUsers } from '../users/published.js'
import { CommentAuthor, type CommentView } from './schema.js'
import { mentionsOf } from './store.js'
import { fromJsonColumn } from '../../db/json.js'

export async function commentViews(q: Q, rows: readonly CommentsTable[]): Promise<CommentView[]> {
  const mentions = await mentionsOf(
    q,
    rows.map((r) => r.id),
  )
  const authors = new Map(
    (
      await getUsers(
        q,
        rows.flatMap((r) => r.author_id ?? []),
      )
    ).map((u) => [u.id, u]),
  )
  return rows.map((r) => {
    const written = fromJsonColumn(CommentAuthor, r.author)
    const user = r.author_id ? authors.get(r.author_id) : undefined
    return {
      id: r.id,
      card: r.card_id,
      body: r.body,
      // A user's name as it is now; what a run acted for, as it was.
      author: user ? { id: user.id, name: user.name, kind: user.kind } : written,
      mentions: mentions.filter((m) => m.comment_id === r.id).map((m) => ({ id: m.id, name: m.name })),
      created: r.created_at,
      updated: r.updated_at,
    }
  })
}
