// GET /v1/events: the change feed, for clients that sync without a public URL for webhooks.
import { defineRoute, NO_STORE } from '../../http/route.js'
import { FeedQuery, FeedSchema } from './schema.js'
import { readFeed } from './service.js'

export const feedRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/events',
    operationId: 'getChangeFeed',
    tag: 'Events',
    access: 'read',
    summary: 'Read the events you would receive by webhook, in commit order, from a cursor; optionally wait for the next ones',
    description: [
      'Every event the caller could receive by webhook (owners and admins: every event, workspace-wide ones such as `audit.entry` too; others: the events of the boards they are a member of now), from the durable event log, in the order their changes committed.',
      '`events` and `boards` select as a subscription’s events and boards do.',
      'Each item is exactly the body a webhook delivery of the event sends (`id` being the event id). Pass the answer’s `next` as `after` to read on: a cursor moves past every event in between that is not for the caller, and no event that commits later is ever behind it.',
      'Take the cursor before a first full load: `after=now` answers at once with no items and the head as `next` (with `wait`, with what came meanwhile).',
      'With `wait` (seconds, up to 30) and nothing to answer yet, the request is held until a matching event commits (in any taskd process on the database) and answered at once; with none, it answers no items and a `next` to go on from.',
      'Waiting requests are capped per token (TASKD_FEED_WAITS_PER_TOKEN, 10) and per process (TASKD_FEED_WAITS, 10,000): past a cap 429 with Retry-After.',
      'The log keeps events TASKD_EVENT_RETENTION_DAYS (30) days: an older cursor, or one whose following events were deleted, answers 410 `cursor_expired` (start again from `now` and reload). A malformed cursor answers 400 naming `after`; an unknown event in `events` 400 naming it.',
    ].join(' '),
    query: FeedQuery,
    errors: [410],
    responses: {
      200: { description: 'The events after the cursor (none when the wait ended without any) and the cursor to read on from', schema: FeedSchema },
    },
    handler: async ({ deps, actor, query, req }) => {
      // A waiting request whose client has gone stops waiting.
      const gone = query.wait > 0 ? new AbortController() : undefined
      const res = req.res
      if (gone && res) res.once('close', () => res.writableFinished || gone.abort())
      const { text, view } = await readFeed(deps, actor, query, gone?.signal)
      // Written as it is: a thousand waiting readers answered at once are a thousand bodies to send, not to serialise.
      return {
        status: 200,
        headers: { ...NO_STORE, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) },
        stream: async (out) => void out.end(text),
        get body() {
          return view()
        },
      }
    },
  }),
]
