// /v1/search: one text looked up in the titles and bodies of cards, comments and notes the caller sees.
import { z } from 'zod'
import { pageSchema } from '../../query/list-page.js'
import { CardSchema } from '../cards/schema.js'
import { CommentSchema } from '../comments/schema.js'
import { NoteSchema } from '../notes/schema.js'

export const SEARCH_TYPES = ['cards', 'comments', 'notes'] as const
export type SearchType = (typeof SEARCH_TYPES)[number]

export const SearchQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1, 'Give the text to look for.')
    .max(200)
    .meta({ description: 'The text to look for: a case-insensitive substring of a title, description or body (`%` and `_` are literal).' }),
  types: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v.split(',').every((t) => (SEARCH_TYPES as readonly string[]).includes(t.trim())),
      `Use ${SEARCH_TYPES.join(', ')}, separated by commas.`,
    )
    .meta({ description: `Comma-separated record types to search (default all): ${SEARCH_TYPES.join(', ')}.` }),
  board: z.string().min(1).optional().meta({ description: 'Only records of this board (cards on it, comments on its cards, notes on it).' }),
  page: z.coerce.number().int().min(1).default(1).meta({ description: 'Page number, from 1, the same for every type.' }),
  per_page: z.coerce.number().int().min(1).max(500).default(30).meta({ description: 'Results per type and page, 1 to 500 (default 30), as on every list.' }),
})
export type SearchInput = z.infer<typeof SearchQuery>

export const SearchResultsSchema = z
  .strictObject({
    q: z.string(),
    cards: pageSchema(CardSchema, 'CardSearchPage').optional(),
    comments: pageSchema(CommentSchema, 'CommentSearchPage').optional(),
    notes: pageSchema(NoteSchema, 'NoteSearchPage').optional(),
  })
  .meta({ id: 'SearchResults', description: 'A page per searched type, most recently updated first; types not searched are left out.' })
export type SearchResults = z.infer<typeof SearchResultsSchema>
