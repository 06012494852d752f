// Events of comments: the comment, and the task it is on (key, title and link).
import { z } from 'zod'
import { ACTOR, BOARD, CARD_REF, described, str, defineEvents, type PayloadsOf } from '../../events/fields.js'

const AUTHOR = described(z.object({ id: z.string(), name: z.string(), kind: z.string() }), '{ id, name, kind } of who wrote the comment')

export const COMMENT_EVENTS = defineEvents({
  'comment.added': {
    summary: 'A comment was added to a task.',
    data: z.object({
      id: str('Comment id'),
      body: str('Comment text (Markdown)'),
      author: AUTHOR,
      mentions: described(z.array(z.object({ id: z.string(), name: z.string() })), 'Users the comment mentions, each { id, name }'),
      created: str('When it was written, ISO 8601'),
      card: CARD_REF,
      board: BOARD,
      actor: ACTOR,
    }),
  },
  'comment.deleted': {
    summary: 'A comment was deleted (also when its task was deleted for good).',
    data: z.object({ id: str('Comment id'), author: AUTHOR, card: CARD_REF, board: BOARD, actor: ACTOR }),
  },
})

declare module '../../events/fields.js' {
  interface EventPayloads extends PayloadsOf<typeof COMMENT_EVENTS> {}
}
