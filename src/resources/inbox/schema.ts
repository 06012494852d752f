// A user's inbox: what happened on tasks that concerns them.
import { z } from 'zod'
import { agrees } from '../../db/agrees.js'
import type { InboxItemsTable } from '../../db/types.js'

export const INBOX_KINDS = ['assigned', 'mentioned', 'commented', 'completed', 'watching', 'question'] as const
agrees<(typeof INBOX_KINDS)[number], InboxItemsTable['kind']>() // the CHECK of schema.sql, or the build fails

export const InboxItemSchema = z
  .strictObject({
    id: z.string(),
    kind: z.enum(INBOX_KINDS).meta({
      description:
        '`assigned` to the task; `mentioned` in a comment; `commented` or `completed` on a task you watch; `watching`: you were made a watcher; `question`: an agent asks you (agents).',
    }),
    card: z.strictObject({ id: z.string(), key: z.string(), title: z.string(), url: z.string() }),
    board: z.strictObject({ id: z.string(), name: z.string() }),
    comment: z.string().nullable().meta({ description: 'The comment, for `mentioned` and `commented`.' }),
    question: z.string().nullable(),
    actor: z.strictObject({ id: z.string(), name: z.string(), kind: z.string() }).meta({ description: 'Who caused it.' }),
    read: z.boolean(),
    read_at: z.string().nullable(),
    created: z.string(),
  })
  .meta({ id: 'InboxItem' })
export type InboxItemView = z.infer<typeof InboxItemSchema>

export const UpdateInboxItemBody = z.strictObject({ read: z.boolean() }).meta({ id: 'UpdateInboxItemBody' })
