// /v1/search: one ranked page of the cards, comments and notes whose text matches, among those the caller sees.
import { defineRoute } from '../../http/route.js'
import { SEARCH_BOUNDS, SearchPageSchema, SearchQuery } from './schema.js'
import { search } from './service.js'

export const searchRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/search',
    operationId: 'search',
    tag: 'Search',
    access: 'read',
    summary: 'Search cards, comments and notes',
    description: [
      'Looks `q` up in a full-text index of card titles and descriptions, comment bodies and note titles and bodies, and answers one',
      'page of results ranked best first (`score`, higher is better; a match in a title counts more than one in a body), over what',
      'the caller sees only: cards and their comments on the boards the caller sees (not in the trash; archived cards are found, as',
      '`GET /v1/cards` lists them), notes on those boards and the caller’s own notes on no board (owners and admins: every note).',
      `\`totalItems\` counts every match the caller sees, exactly up to ${SEARCH_BOUNDS.matches}; past that (a broad word) the search ranks a bounded set,`,
      `the ${SEARCH_BOUNDS.matches} matches the index reads first (on SQLite the newest) and up to ${SEARCH_BOUNDS.titles} more whose title matches, \`totalItems\` is an estimate`,
      'and `totalCapped` is true, and the pages reach the ranked results only. `snippet` shows the words around the matches, each between « and ».',
      'The index is kept in the transaction of every change, so an edit, a move or a deletion shows at once.',
      'For exact conditions use the `filter` of `GET /v1/cards` (its `~` is a substring test).',
    ].join(' '),
    query: SearchQuery,
    responses: { 200: { description: 'A page of results, the best first', schema: SearchPageSchema } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await search(deps, actor, query) }),
  }),
]
