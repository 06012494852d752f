// Comment queries.
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { forUpdate } from '../../db/dialect.js'
import type { CommentsTable } from '../../db/types.js'

export const getComment = (q: Q, id: string) => q.selectFrom('comments').selectAll().where('id', '=', id).executeTakeFirst()
/** The comment, its row locked until the transaction ends (PostgreSQL; SQLite has one writer anyway). */
export const lockComment = (q: Q, id: string) => forUpdate(q, q.selectFrom('comments').selectAll().where('id', '=', id)).executeTakeFirst()
export const insertComment = (q: Q, row: CommentsTable) => q.insertInto('comments').values(row).execute()
export const updateCommentRow = (q: Q, id: string, set: Partial<CommentsTable>) => q.updateTable('comments').set(set).where('id', '=', id).execute()
export const deleteCommentRow = (q: Q, id: string) => q.deleteFrom('comments').where('id', '=', id).execute()
export const commentsOfCard = (q: Q, cardId: string): Promise<CommentsTable[]> => commentsOfCards(q, [cardId])
/** The comments of the cards, oldest first. */
export const commentsOfCards = (q: Q, cardIds: readonly string[]): Promise<CommentsTable[]> =>
  cardIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('comments')
        .selectAll()
        .where('card_id', 'in', [...cardIds])
        .orderBy('created_at')
        .orderBy('id')
        .execute()

export const mentionsOf = (q: Q, commentIds: readonly string[]) =>
  commentIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('comment_mentions')
        .innerJoin('users', 'users.id', 'comment_mentions.user_id')
        .select(['comment_mentions.comment_id', 'users.id', 'users.name'])
        .where('comment_mentions.comment_id', 'in', commentIds)
        .orderBy('users.name')
        .execute()
export async function setMentions(q: Q, commentId: string, userIds: readonly string[]): Promise<void> {
  await q.deleteFrom('comment_mentions').where('comment_id', '=', commentId).execute()
  if (userIds.length)
    await q
      .insertInto('comment_mentions')
      .values(userIds.map((user_id) => ({ comment_id: commentId, user_id })))
      .execute()
}

/** Base query of the comment list: comments on the cards of the boards a user sees (none in the trash), optionally of one card. */
export function visibleCommentsQuery(q: Q, viewer: Viewer, cardId?: string) {
  const query = q.selectFrom('comments').innerJoin('cards', 'cards.id', 'comments.card_id').where('cards.board_id', 'in', visibleBoardIds(q, viewer))
  return cardId ? query.where('comments.card_id', '=', cardId) : query
}
