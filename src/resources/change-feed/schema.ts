// The change feed: its query, and the page it answers (delivery envelopes and the cursor to read on from).
import { z } from 'zod'

export const FEED_LIMIT_DEFAULT = 100
export const FEED_LIMIT_MAX = 500
export const FEED_WAIT_MAX = 30
/** `after=now`: start at the head, so a client takes its cursor before its first load. */
export const AFTER_NOW = 'now'

export const FeedQuery = z.strictObject({
  after: z.string().min(1).max(100).optional().meta({
    description:
      'Where to read on from: the `next` of the previous answer (opaque), or `now` for the head (only what commits from now on). Absent: the oldest event the log still keeps.',
    example: 'now',
  }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(FEED_LIMIT_MAX)
    .default(FEED_LIMIT_DEFAULT)
    .meta({ description: `Events per answer, 1 to ${FEED_LIMIT_MAX} (default ${FEED_LIMIT_DEFAULT}).` }),
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .max(FEED_WAIT_MAX)
    .default(0)
    .meta({
      description: `Seconds to wait, 0 to ${FEED_WAIT_MAX}, when nothing is there yet: the answer comes as soon as a matching event commits, or with no items when the time is up.`,
    }),
  events: z.string().max(4000).optional().meta({
    description: 'Only these events: comma-separated event names, `<family>.*` or `*`, as a webhook subscription selects them. Absent: every event.',
    example: 'card.*,comment.added',
  }),
  boards: z.string().max(4000).optional().meta({
    description:
      'Only events of these boards (comma-separated board ids, at most 100), as a webhook subscription names its boards; workspace-wide events then never match, nor does a board whose events the caller does not receive. Absent: every board.',
    example: '2s4vwyd1zzcel93k',
  }),
})
export type FeedInput = z.infer<typeof FeedQuery>

const example = {
  items: [
    {
      id: '2s4vwyd1zzcel93k',
      event: 'card.created',
      timestamp: '2026-11-21T12:00:00.000Z',
      data: { id: '2s4vwydjhblds2lz', key: 'LCH-7', title: 'Ship it', actor: { id: '2s4vwy9m0k3a1b2c', name: 'Ada' } },
    },
  ],
  next: 'MTA0Mi4xNzk1MjYyNDAwMDAw',
}

export const FeedItemSchema = z
  .strictObject({
    id: z.string().meta({ description: "The event's id (a webhook delivery carries its delivery id here): the same on every read, for deduplication." }),
    event: z.string().meta({ description: 'The event name, one of GET /v1/webhooks/events.' }),
    timestamp: z.string().meta({ description: 'When the event happened, ISO 8601 UTC.' }),
    data: z
      .record(z.string(), z.unknown())
      .meta({ description: "The event's payload, exactly as a webhook delivery of it carries it (see the webhooks section)." }),
  })
  .meta({ id: 'FeedItem', description: 'One event in the shape of a webhook delivery body.' })

export const FeedSchema = z
  .strictObject({
    items: z.array(FeedItemSchema).meta({ description: 'In commit order, oldest first.' }),
    next: z
      .string()
      .meta({ description: 'The cursor to pass as `after` next time: past these items and past every event in between that the caller does not receive.' }),
  })
  .meta({ id: 'Feed', examples: [example] })
export type FeedView = z.infer<typeof FeedSchema>
export type FeedItem = z.infer<typeof FeedItemSchema>
