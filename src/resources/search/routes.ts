// /v1/search: cards, comments and notes holding a text, a page per type.
import { defineRoute } from '../../http/route.js'
import { SearchQuery, SearchResultsSchema } from './schema.js'
import { search } from './service.js'

export const searchRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/search',
    operationId: 'search',
    tag: 'Search',
    access: 'read',
    summary: 'Search cards, comments and notes for a text',
    description:
      'Looks for `q` in card titles and descriptions, comment bodies and note titles and bodies, on the boards the caller sees (notes on no board: their own). For more precise queries use the `filter` of each list route.',
    query: SearchQuery,
    responses: { 200: { description: 'A page of each searched type', schema: SearchResultsSchema } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await search(deps, actor, query) }),
  }),
]
