// /v1/search: one ranked page of the cards, comments and notes whose text matches, among those the caller sees.
import { z } from 'zod'
import { SEARCH_KINDS } from '../../db/full-text.js'
import { pageSchema } from '../../query/list-page.js'

export const SEARCH_TYPES = SEARCH_KINDS
export type SearchType = (typeof SEARCH_TYPES)[number]

export const SearchQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1, 'Give the text to look for.')
    .max(200)
    .meta({
      description:
        'What to look for, 1 to 200 characters: words, each of which must match (case and accents aside), `"quoted phrases"` whose ' +
        'words must follow each other, and a trailing `*` for a prefix (`deplo*` finds deploy and deployment; `"release no*"` too). ' +
        'Anything else (punctuation, operators) only separates words; a text with no word answers an empty page.',
      example: 'deplo* "release notes"',
    }),
  types: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v.split(',').every((t) => (SEARCH_TYPES as readonly string[]).includes(t.trim())),
      `Use ${SEARCH_TYPES.join(', ')}, separated by commas.`,
    )
    .meta({ description: `Comma-separated record types to search (default all): ${SEARCH_TYPES.join(', ')}.`, example: 'card,comment' }),
  board: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Only records of this board (its cards, their comments, its notes); a board the caller does not see gives an empty page.' }),
  page: z.coerce.number().int().min(1).default(1).meta({ description: 'Page number, from 1.' }),
  per_page: z.coerce.number().int().min(1).max(500).default(30).meta({ description: 'Page size, 1 to 500 (default 30).' }),
})
export type SearchInput = z.infer<typeof SearchQuery>

const CardRef = z
  .strictObject({ id: z.string(), key: z.string(), title: z.string() })
  .meta({ id: 'SearchCardRef', description: 'The card a result is (a card), is on (a comment) or is about (a note linked to a card).' })

export const SearchResultSchema = z
  .strictObject({
    type: z.enum(SEARCH_TYPES).meta({ description: 'What matched.' }),
    id: z.string().meta({ description: 'The record id of the card, comment or note.' }),
    title: z.string().meta({ description: "The card's or note's title; for a comment, its card's title." }),
    snippet: z.string().meta({
      description:
        'Some words of the body (a card’s description, a comment, a note’s body) around the matches, or of the title when only the title matches, each match between « and ».',
    }),
    card: CardRef.nullable(),
    board: z.string().nullable().meta({ description: 'The board id (null for a note on no board).' }),
    score: z.number().meta({
      description:
        'Relevance, higher is better (title matches count more than body matches): bm25 on SQLite, ts_rank_cd normalized to 0..1 on PostgreSQL. Compare scores within one response only.',
    }),
  })
  .meta({
    id: 'SearchResult',
    example: {
      type: 'card',
      id: '2s4vwyd1zzcel93k',
      title: 'Deploy the billing service',
      snippet: 'Roll out after the «deployment» window on Friday',
      card: { id: '2s4vwyd1zzcel93k', key: 'LCH-12', title: 'Deploy the billing service' },
      board: '2s4vwy9m0aqd1xk4',
      score: 4.21,
    },
  })
export type SearchResult = z.infer<typeof SearchResultSchema>

export const SearchPageSchema = pageSchema(SearchResultSchema, 'SearchResultPage')
