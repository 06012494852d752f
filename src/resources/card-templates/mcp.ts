// The MCP tool of card templates: finding one to make a card from (create_card takes `template`).
import { z } from 'zod'
import { type Tool, asQuery, pageArgs, READ } from '../../mcp/tools.js'

export const CARD_TEMPLATE_TOOLS: readonly Tool[] = [
  {
    name: 'list_card_templates',
    title: 'List card templates',
    description:
      'The card templates of a board (or of every board you can see): { id, name, title, description, priority, tags, assignees, checklist, xattr }. Make a card from one with create_card { board, template }; the fields you give win.',
    input: z.strictObject({ board: z.string().min(1).optional().describe('Only the templates of this board (record id).'), ...pageArgs }),
    annotations: READ,
    run: (call, args) => call('listCardTemplates', { query: asQuery(args) }),
  },
]
