// Search: the text's terms looked up in the full-text index over what the caller sees (decided by searchScopeOf and
// applied inside the index's query, so a page is never filtered afterwards), then the page's records shown.
import type { Actor } from '../../access/roles.js'
import { searchScopeOf } from '../../access/records.js'
import { inBackground } from '../../db/database.js'
import type { Deps } from '../../deps.js'
import { SEARCH_BOUNDS, searchTotal, type SearchBounds, type SearchScope, type SearchTotal } from '../../db/full-text.js'
import { resultsOf } from './present.js'
import { SEARCH_TYPES, type SearchInput, type SearchPage, type SearchResult, type SearchType } from './schema.js'
import { mergeSearchIndexStep, searchQueries } from './store.js'
import { searchTerms } from './terms.js'

const NOTHING: SearchScope = { boards: { only: [] }, boardless: 'none' }

export async function search(deps: Deps, actor: Actor, input: SearchInput, bounds: SearchBounds = SEARCH_BOUNDS): Promise<SearchPage> {
  const { q } = deps.db
  const page = ({ total, capped, reachable }: SearchTotal, items: SearchResult[]): SearchPage => ({
    page: input.page,
    perPage: input.per_page,
    totalItems: total,
    totalPages: Math.ceil(reachable / input.per_page),
    totalCapped: capped,
    items,
  })
  const terms = searchTerms(input.q)
  const kinds = input.types ? SEARCH_TYPES.filter((t) => input.types!.split(',').some((w) => w.trim() === t)) : [...SEARCH_TYPES]
  // An automation run sees its own board only.
  const board = actor.run ? actor.run.board : input.board
  const scope = actor.run && input.board !== undefined && input.board !== board ? NOTHING : await searchScopeOf(q, actor.user, board)
  const queries = terms.length
    ? searchQueries(q, {
        terms,
        kinds: kinds as SearchType[],
        scope,
        limit: input.per_page,
        offset: Math.min((input.page - 1) * input.per_page, Number.MAX_SAFE_INTEGER),
        bounds,
      })
    : undefined
  const none = { total: 0, capped: false, reachable: 0 }
  if (!queries) return page(none, [])
  // The page carries the counts on each row (one statement, off the event loop, under the query deadline); a page with
  // no row reads them on their own.
  const hits = await deps.db.read(queries.page)
  const counts = hits[0] ?? (await deps.db.read(queries.counts))[0]
  return page(counts ? searchTotal(counts, bounds) : none, await resultsOf(q, hits, scope))
}

/** Pages an upkeep step of the index writes at most (a few milliseconds of the writer's time each). */
const MERGE_PAGES = 200

/**
 * Housekeeping's upkeep of the index: merged into one segment (SQLite; nothing on PostgreSQL), a step per transaction
 * in the writer's background lane and a turn of the event loop between steps, until there is nothing to merge.
 */
export async function compactSearchIndex(deps: Deps, stopping: () => boolean): Promise<void> {
  while (!stopping() && (await inBackground(() => deps.db.tx(({ q }) => mergeSearchIndexStep(q, MERGE_PAGES)))))
    await new Promise((resolve) => setImmediate(resolve))
}
