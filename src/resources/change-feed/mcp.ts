// The MCP tool of the change feed: what changed since a cursor, for an assistant catching up.
import { z } from 'zod'
import { asQuery, type Tool, READ } from '../../mcp/tools.js'
import { FEED_LIMIT_DEFAULT, FEED_LIMIT_MAX } from './schema.js'

export const FEED_TOOLS: readonly Tool[] = [
  {
    name: 'recent_changes',
    title: 'Recent changes',
    description:
      'The events you would receive by webhook (cards created, updated, moved, completed; comments; checklists; agents; ...) in the order they happened, each as { id, event, timestamp, data }, and `next`, the cursor to pass as `after` to get what came since. Without `after`: from the oldest event kept; `after: "now"`: nothing yet, only the cursor of the present moment. Does not wait.',
    input: z.strictObject({
      after: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .describe('The `next` of an earlier call, or "now". Absent: from the oldest event kept (30 days by default).'),
      limit: z.number().int().min(1).max(FEED_LIMIT_MAX).optional().describe(`Events at most, 1 to ${FEED_LIMIT_MAX} (default ${FEED_LIMIT_DEFAULT}).`),
      events: z
        .array(z.string().min(1).max(100))
        .max(100)
        .optional()
        .describe('Only these events: names (card.created), whole families (card.*) or * (every event). Absent: every event.'),
      boards: z
        .array(z.string().min(1).max(100))
        .max(100)
        .optional()
        .describe('Only events of these boards (board ids). Absent: every board you receive events of.'),
    }),
    annotations: READ,
    run: (call, args) => call('getChangeFeed', { query: asQuery(args) }),
  },
]
