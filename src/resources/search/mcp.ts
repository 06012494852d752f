// The MCP tool of the search family: full-text search over what the caller sees.
import { z } from 'zod'
import { type Tool, asQuery, READ } from '../../mcp/tools.js'
import { SEARCH_BOUNDS, SEARCH_TYPES } from './schema.js'

export const SEARCH_TOOLS: readonly Tool[] = [
  {
    name: 'search',
    title: 'Search',
    description:
      'Full-text search of card titles and descriptions, comment bodies and note titles and bodies you can see: one page of results ' +
      '{ type, id, title, snippet, card: { id, key, title } | null, board, score }, best first, matches in the snippet between « and ». ' +
      'Every word must match (case and accents aside); "quoted phrases" match words in order; a trailing * matches a prefix (deplo*). ' +
      `Past ${SEARCH_BOUNDS.matches} matches totalItems is an estimate (totalCapped: true) and only the best of a bounded set are ranked: add words to narrow it. ` +
      'For exact conditions use list_cards with a filter.',
    input: z.strictObject({
      q: z.string().min(1).max(200).describe('The words to look for, with "phrases" and prefix* as described.'),
      types: z.array(z.enum(SEARCH_TYPES)).optional().describe('Which record types to search (default all).'),
      board: z.string().min(1).optional().describe('Only records of this board (record id).'),
      page: z.number().int().min(1).optional().describe('Page number, from 1 (default 1).'),
      per_page: z.number().int().min(1).max(500).optional().describe('Results per page, 1 to 500 (default 30).'),
    }),
    annotations: READ,
    run: (call, args) => call('search', { query: asQuery(args) }),
  },
]
