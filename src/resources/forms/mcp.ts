// The MCP tool of forms: finding a board's forms and their public addresses.
import { z } from 'zod'
import { type Tool, asQuery, pageArgs, READ } from '../../mcp/tools.js'

export const FORM_TOOLS: readonly Tool[] = [
  {
    name: 'list_forms',
    title: 'List forms',
    description:
      'The public forms of a board (or of every board you can see): { id, name, slug, url, open, fields }. Anyone with a form’s url can send it without a token; each submission becomes a card on the board.',
    input: z.strictObject({ board: z.string().min(1).optional().describe('Only the forms of this board (record id).'), ...pageArgs }),
    annotations: READ,
    run: (call, args) => call('listForms', { query: asQuery(args) }),
  },
]
