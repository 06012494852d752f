// The MCP tool of the search family: text search over what the caller sees.
import { z } from 'zod'
import { type Tool, asQuery, READ } from '../../mcp/tools.js'
import { SEARCH_TYPES } from './schema.js'

export const SEARCH_TOOLS: readonly Tool[] = [
  {
    name: 'search',
    title: 'Search',
    description:
      'Looks for a text in card titles and descriptions, comment bodies and note titles and bodies you can see (case-insensitive substring), most recently updated first, a page per type. For precise queries use list_cards with a filter.',
    input: z.strictObject({
      q: z.string().min(1).max(200).describe('The text to look for.'),
      types: z.array(z.enum(SEARCH_TYPES)).optional().describe('Which record types to search (default all).'),
      board: z.string().min(1).optional().describe('Only records of this board (record id).'),
      page: z.number().int().min(1).optional().describe('Page number, from 1 (default 1).'),
      per_page: z.number().int().min(1).max(500).optional().describe('Results per type, 1 to 500 (default 30).'),
    }),
    annotations: READ,
    run: (call, args) => call('search', { query: asQuery(args) }),
  },
]
