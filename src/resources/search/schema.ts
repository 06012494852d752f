// /v1/search: one ranked page of the cards, comments and notes whose text matches, among those the caller sees.
import { z } from 'zod'
import { SEARCH_BOUNDS, SEARCH_KINDS } from '../../db/full-text.js'

export const SEARCH_TYPES = SEARCH_KINDS
export { SEARCH_BOUNDS }
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

export const SearchPageSchema = z
  .strictObject({
    page: z.number().int(),
    perPage: z.number().int(),
    totalItems: z
      .number()
      .int()
      .meta({
        description: `How many results the caller sees: exact up to ${SEARCH_BOUNDS.matches} matches; past them an estimate (\`totalCapped\` is then true).`,
      }),
    totalPages: z.number().int().meta({ description: 'The pages that hold results: of every result, or when `totalCapped`, of those ranked.' }),
    totalCapped: z.boolean().meta({
      description:
        `True when more than ${SEARCH_BOUNDS.matches} records match: \`totalItems\` is then an estimate, and the results ranked (the pages reach ` +
        `those only) are the ${SEARCH_BOUNDS.matches} matches the index reads first (on SQLite the newest) and up to ${SEARCH_BOUNDS.titles} more whose ` +
        'title matches, so a record named by the words still comes first. Narrow the text, `types` or `board` to rank every match.',
    }),
    items: z.array(SearchResultSchema),
  })
  .meta({
    id: 'SearchResultPage',
    description: 'One page of results, the best first.',
    example: {
      page: 1,
      perPage: 30,
      totalItems: 10400,
      totalPages: 24,
      totalCapped: true,
      items: [
        {
          type: 'card',
          id: '2s4vwyd1zzcel93k',
          title: 'Weekly report',
          snippet: 'Weekly «report»',
          card: { id: '2s4vwyd1zzcel93k', key: 'LCH-12', title: 'Weekly report' },
          board: '2s4vwy9m0aqd1xk4',
          score: 9.4,
        },
      ],
    },
  })
export type SearchPage = z.infer<typeof SearchPageSchema>
