// Comments on tasks: Markdown bodies with @mentions.
import { z } from 'zod'

/** Who wrote a comment: a user (`human` or `agent`), or what an automation run acted for. */
export const CommentAuthor = z
  .strictObject({ id: z.string(), name: z.string(), kind: z.enum(['human', 'agent', 'incoming_webhook', 'automation']) })
  .meta({ id: 'CommentAuthor' })

export const CommentSchema = z
  .strictObject({
    id: z.string(),
    card: z.string(),
    body: z.string().meta({ description: 'Markdown.' }),
    author: CommentAuthor,
    mentions: z.array(z.strictObject({ id: z.string(), name: z.string() })).meta({ description: 'Users the body names with `@name`.' }),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Comment' })
export type CommentView = z.infer<typeof CommentSchema>

/** The longest comment body, on every path that writes one. */
export const COMMENT_MAX_CHARS = 100_000
const body = z
  .string()
  .max(COMMENT_MAX_CHARS, 'At most 100,000 characters.')
  .refine((s) => s.trim().length > 0, 'Must not be empty.')
  .meta({ description: "Markdown, 1 to 100,000 characters. `@name` (a member's name or the part of their email before the @) mentions them." })
export const CreateCommentBody = z
  .strictObject({ card: z.string().min(1).meta({ description: 'The card (record id).' }), body })
  .meta({ id: 'CreateCommentBody' })
export type CreateCommentInput = z.infer<typeof CreateCommentBody>
export const UpdateCommentBody = z.strictObject({ body }).meta({ id: 'UpdateCommentBody' })
