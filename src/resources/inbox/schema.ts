// A user's inbox: what happened on tasks that concerns them.
import { z } from 'zod'
import { agrees } from '../../db/agrees.js'
import type { InboxItemsTable } from '../../db/types.js'

export const INBOX_KINDS = ['assigned', 'mentioned', 'commented', 'completed', 'watching', 'question', 'webhook_paused'] as const
agrees<(typeof INBOX_KINDS)[number], InboxItemsTable['kind']>() // the CHECK of schema.sql, or the build fails

export const InboxItemSchema = z
  .strictObject({
    id: z.string(),
    kind: z.enum(INBOX_KINDS).meta({
      description:
        '`assigned` to the task; `mentioned` in a comment; `commented` or `completed` on a task you watch; `watching`: you were made a watcher; `question`: an agent asks you (agents); `webhook_paused`: taskd paused an outgoing webhook subscription of yours whose deliveries kept failing (`webhook` names it; resume it with POST /v1/webhooks/{id}/resume).',
    }),
    card: z
      .strictObject({ id: z.string(), key: z.string(), title: z.string(), url: z.string() })
      .nullable()
      .meta({ description: 'The task; null for an item about no task (`webhook_paused`).' }),
    board: z.strictObject({ id: z.string(), name: z.string() }).nullable().meta({ description: "The task's board; null when there is no task." }),
    comment: z.string().nullable().meta({ description: 'The comment, for `mentioned` and `commented`.' }),
    question: z.string().nullable(),
    webhook: z
      .strictObject({ id: z.string(), name: z.string() })
      .nullable()
      .meta({ description: 'For `webhook_paused`: the subscription taskd paused; null otherwise.' }),
    actor: z.strictObject({ id: z.string(), name: z.string(), kind: z.string() }).meta({ description: 'Who caused it.' }),
    read: z.boolean(),
    read_at: z.string().nullable(),
    created: z.string(),
  })
  .meta({ id: 'InboxItem' })
export type InboxItemView = z.infer<typeof InboxItemSchema>

export const UpdateInboxItemBody = z.strictObject({ read: z.boolean() }).meta({ id: 'UpdateInboxItemBody' })
