// The MCP tool of the comments family: commenting on a card.
import { type Tool, fieldsFrom, write } from '../../mcp/tools.js'
import { CreateCommentBody } from './schema.js'

export const COMMENT_TOOLS: readonly Tool[] = [
  {
    name: 'add_comment',
    title: 'Add a comment',
    description:
      'Comments on a card as you, in Markdown. `@name` mentions a board member (their name or the part of their email before the @), who is told in their inbox.',
    input: fieldsFrom(CreateCommentBody),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call, body) => call('createComment', { body }),
  },
]
