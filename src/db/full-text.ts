// The full-text index's queries, the one place that knows how each dialect keeps it (schema.sql and schema.pg.sql:
// search_docs with triggers on cards, comments and notes). SQLite: an FTS5 table ranked by bm25, with the scope words
// its triggers write (k<kind>, b<board>, `hidden`, `nob`, o<creator>) matched inside the same MATCH, so what the caller
// cannot see is never read, counted or ranked. PostgreSQL: a tsvector ('simple' configuration) with a GIN index, ranked
// by ts_rank_cd, what the caller sees tested in the same statement on the board, creator and trash its triggers keep
// beside it (no join per match). What a user typed only ever goes in as a quoted string (FTS5) or a parameter of
// phraseto_tsquery / words of letters and digits (to_tsquery).
import { type Compilable, PostgresAdapter, sql, type RawBuilder } from 'kysely'
import type { Q } from './database.js'

export const SEARCH_KINDS = ['card', 'comment', 'note'] as const
export type SearchKind = (typeof SEARCH_KINDS)[number]

/**
 * One thing a match must hold: a word or a quoted phrase (`text`, its words in that order, as the index splits them),
 * its last word a prefix when `prefix` (`deplo*`). `words` are its runs of letters and digits.
 */
export interface SearchTerm {
  text: string
  words: readonly string[]
  prefix: boolean
}

/** What the caller sees, as decided in src/access (searchScopeOf): boards by id, and notes on no board. */
export interface SearchScope {
  /** The boards whose cards, comments and notes show: `only` these, or every board `except` these (trashed ones too). */
  boards: { only: readonly string[] } | { except: readonly string[] }
  /** Notes on no board: all of them, those one user made, or none. */
  boardless: 'all' | { creator: string } | 'none'
}

export interface SearchRequest {
  /** At least one; every one must match (AND). */
  terms: readonly SearchTerm[]
  kinds: readonly SearchKind[]
  scope: SearchScope
  limit: number
  offset: number
}

/** One match of a page: the record, its score (higher is better) and its title and body with the matches marked «…». */
export interface SearchHit {
  kind: SearchKind
  record_id: string
  score: number
  title_snippet: string | null
  body_snippet: string | null
}

const isPostgres = (q: Q) => q.getExecutor().adapter instanceof PostgresAdapter

/** The count and the page of a search, to read together (Db.readAll); undefined when the scope holds nothing to search. */
export function searchQueries(q: Q, req: SearchRequest): { count: Compilable<{ n: number | string }>; page: Compilable<SearchHit> } | undefined {
  const queries = isPostgres(q) ? postgresQueries(req) : sqliteQueries(req)
  return queries && { count: { compile: () => queries.count.compile(q) }, page: { compile: () => queries.page.compile(q) } }
}

// --- SQLite: FTS5 ---------------------------------------------------------------------------------------------------

/** An FTS5 string: the text between double quotes, a double quote doubled. Whatever it holds is only ever words. */
const fts = (text: string) => `"${text.replaceAll('"', '""')}"`

/** The MATCH expression: the terms in the title and body, the kinds and what the caller sees in the scope words. */
function matchExpression(req: Pick<SearchRequest, 'terms' | 'kinds' | 'scope'>): string | undefined {
  const text = req.terms.map((t) => `${fts(t.text)}${t.prefix ? ' *' : ''}`).join(' AND ')
  const parts = [`{title body} : (${text})`]
  if (req.kinds.length < SEARCH_KINDS.length) parts.push(`scope : (${req.kinds.map((k) => fts(`k${k}`)).join(' OR ')})`)
  const { boards, boardless } = req.scope
  if ('only' in boards) {
    const seen = boards.only.map((b) => fts(`b${b}`))
    if (boardless === 'all') seen.push(fts('nob'))
    else if (boardless !== 'none') seen.push(fts(`o${boardless.creator}`))
    if (!seen.length) return undefined
    parts.push(`scope : (${seen.join(' OR ')})`)
    return parts.map((p) => `(${p})`).join(' AND ')
  }
  // Every board but some: a trashed card and its comments are `hidden`, notes on no board are `nob` (with o<creator>).
  const unseen = [fts('hidden'), ...boards.except.map((b) => fts(`b${b}`))]
  if (boardless === 'none') unseen.push(fts('nob'))
  else if (boardless !== 'all') unseen.push(`(${fts('nob')} NOT ${fts(`o${boardless.creator}`)})`)
  return `(${parts.map((p) => `(${p})`).join(' AND ')}) NOT (scope : (${unseen.join(' OR ')}))`
}

/** bm25 with a title match worth ten of the body's; the scope column counts for nothing. */
const BM25 = sql`bm25(search_fts, 10.0, 1.0, 0.0)`
const SNIPPET_WORDS = 24

function sqliteQueries(req: SearchRequest) {
  const expr = matchExpression(req)
  if (expr === undefined) return undefined
  const snippet = (column: number) => sql`snippet(search_fts, ${sql.lit(column)}, '«', '»', '…', ${sql.lit(SNIPPET_WORDS)})`
  return {
    count: sql<{ n: number }>`SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH ${expr}`,
    // The page's rows first (every match ranked, reading the index's tables only), then their snippets and records in
    // one more pass over the matches between the page's first and last rowid (one cursor: a prefix's terms are gathered
    // once, where a lookup per row would gather them again for each), the snippets made for the page's rows only.
    page: sql<SearchHit>`WITH page AS MATERIALIZED (
        SELECT rowid AS id, ${BM25} AS r FROM search_fts WHERE search_fts MATCH ${expr} ORDER BY r, rowid LIMIT ${req.limit} OFFSET ${req.offset})
      SELECT search_docs.kind, search_docs.record_id, -page.r AS score, ${snippet(0)} AS title_snippet, ${snippet(1)} AS body_snippet
      FROM search_fts CROSS JOIN page ON page.id = search_fts.rowid CROSS JOIN search_docs ON search_docs.id = page.id
      WHERE search_fts MATCH ${expr} AND search_fts.rowid BETWEEN (SELECT min(id) FROM page) AND (SELECT max(id) FROM page)
      ORDER BY page.r, page.id`,
  }
}

// --- PostgreSQL: tsvector -------------------------------------------------------------------------------------------

/** A to_tsquery lexeme: only letters and digits reach here, quoted all the same. */
const lexeme = (word: string) => `'${word.replaceAll("'", "''").replaceAll('\\', '\\\\')}'`

/**
 * The tsquery of the terms, ANDed: each a phrase of the text folded as the index's was (taskd_fold), split by the
 * configuration's own parser; a prefix term as its words, the last one a prefix.
 */
function tsquery(terms: readonly SearchTerm[]): RawBuilder<unknown> {
  const each = terms.map((t) =>
    t.prefix
      ? sql`to_tsquery('simple', taskd_fold(${t.words.map((w, i) => `${lexeme(w)}${i === t.words.length - 1 ? ':*' : ''}`).join(' <-> ')}))`
      : sql`phraseto_tsquery('simple', taskd_fold(${t.text}))`,
  )
  return sql`(${sql.join(each, sql` && `)})`
}

/** What the caller sees of a search_docs row `d`: the kinds asked for, on a board seen (not hidden), or a note on none. */
function visible(kinds: readonly SearchKind[], scope: SearchScope): RawBuilder<unknown> {
  const { boards } = scope
  const onBoard =
    'only' in boards
      ? sql`d.board_id = ANY(${[...boards.only]}::text[])`
      : sql`(d.board_id IS NOT NULL AND NOT (d.board_id = ANY(${[...boards.except]}::text[])))`
  const boardless =
    scope.boardless === 'all'
      ? sql`(d.kind = 'note' AND d.board_id IS NULL)`
      : scope.boardless === 'none'
        ? sql`FALSE`
        : sql`(d.kind = 'note' AND d.board_id IS NULL AND d.owner_id = ${scope.boardless.creator})`
  const ofKinds = kinds.length < SEARCH_KINDS.length ? sql` AND d.kind = ANY(${[...kinds]}::text[])` : sql``
  return sql`(d.hidden = 0 AND (${onBoard} OR ${boardless})${ofKinds})`
}

const HEADLINE = `StartSel=«, StopSel=», MaxWords=${SNIPPET_WORDS}, MinWords=${SNIPPET_WORDS / 2}, ShortWord=0, MaxFragments=1`

function postgresQueries(req: SearchRequest) {
  const query = tsquery(req.terms)
  const where = sql`d.tsv @@ ${query} AND ${visible(req.kinds, req.scope)}`
  const headline = (text: RawBuilder<unknown>) => sql`ts_headline('simple', ${text}, ${query}, ${HEADLINE})`
  return {
    count: sql<{ n: string }>`SELECT count(*) AS n FROM search_docs d WHERE ${where}`,
    // A title match (weight A) counts ten times a body match (B); the rank is normalized to 0..1 (rank / (rank + 1)).
    page: sql<SearchHit>`WITH page AS MATERIALIZED (
        SELECT d.kind, d.record_id, ts_rank_cd('{0, 0, 0.1, 1}', d.tsv, ${query}, 32) AS score FROM search_docs d WHERE ${where}
        ORDER BY score DESC, d.kind, d.record_id LIMIT ${req.limit} OFFSET ${req.offset})
      SELECT page.kind, page.record_id, page.score,
        ${headline(sql`COALESCE(c.title, n.title, '')`)} AS title_snippet,
        ${headline(sql`COALESCE(c.description, m.body, n.body, '')`)} AS body_snippet
      FROM page
        LEFT JOIN cards c ON page.kind = 'card' AND c.id = page.record_id
        LEFT JOIN comments m ON page.kind = 'comment' AND m.id = page.record_id
        LEFT JOIN notes n ON page.kind = 'note' AND n.id = page.record_id
      ORDER BY page.score DESC, page.kind, page.record_id`,
  }
}

// --- Upkeep ---------------------------------------------------------------------------------------------------------

/**
 * One step of merging the index into one segment (FTS5 `merge` with a negative page count: at most `pages` pages
 * written), so a search reads one b-tree instead of the dozen that writes leave (twice as fast on 100,000 cards);
 * whether it found work. PostgreSQL's GIN index needs no such step (autovacuum folds its pending list).
 */
export async function mergeSearchIndexStep(q: Q, pages: number): Promise<boolean> {
  if (isPostgres(q)) return false
  const changes = async () => Number((await sql<{ n: number }>`SELECT total_changes() AS n`.execute(q)).rows[0].n)
  const before = await changes()
  await sql`INSERT INTO search_fts (search_fts, rank) VALUES ('merge', ${sql.lit(-Math.abs(pages))})`.execute(q)
  // As FTS5 documents it: a step that merged anything changed at least two rows.
  return (await changes()) - before >= 2
}
