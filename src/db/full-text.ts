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
  /** How much of a broad text is counted and ranked (SEARCH_BOUNDS unless a test asks for less). */
  bounds?: SearchBounds
}

/**
 * How much work one search does, whatever the text: the matches it counts and ranks, `matches` of them as the index
 * reads them (newest first on SQLite, in the table's order on PostgreSQL), and, when there are more, up to `titles`
 * further matches in a title (so a broad word still puts the records named by it first). All of them when there are
 * at most `matches`: the total is then exact and the ranking that of every match.
 */
export interface SearchBounds {
  matches: number
  titles: number
}
export const SEARCH_BOUNDS: SearchBounds = { matches: 300, titles: 100 }

/** One match of a page: the record, its score (higher is better) and its title and body with the matches marked «…». */
export interface SearchHit extends SearchCounts {
  kind: SearchKind
  record_id: string
  score: number
  title_snippet: string | null
  body_snippet: string | null
}

/**
 * What a search read of its matches, for the total: `matched` of them as the index reads them (at most one more than
 * the bound: then there are more), `titles` further matches in a title, and for an estimate past the bound, how much
 * of the index the matches read span (`covered`) of the span of all the caller's matches (`whole`), in the index's
 * own units (SQLite rowids, PostgreSQL table pages).
 */
export interface SearchCounts {
  matched: number | string
  titles: number | string
  covered: number | string | null
  whole: number | string | null
  /** Every match, when the read saw them all past the bound (PostgreSQL reads on a little further); else null. */
  every: number | string | null
}

/** The total of a search: exact, or past the bound an estimate (`capped`); `reachable`: the ranked results pages reach. */
export interface SearchTotal {
  total: number
  capped: boolean
  reachable: number
}

export function searchTotal(counts: SearchCounts, bounds: SearchBounds = SEARCH_BOUNDS): SearchTotal {
  const matched = Number(counts.matched)
  if (matched <= bounds.matches) return { total: matched, capped: false, reachable: matched }
  const reachable = matched + Number(counts.titles)
  const covered = Number(counts.covered ?? 0)
  const whole = Number(counts.whole ?? 0)
  // The matches read are a share of the index (its newest part, or its first pages): as many again in the rest of it.
  const estimate = counts.every !== null ? Number(counts.every) : covered > 0 && whole > covered ? Math.round((matched * whole) / covered) : matched
  return { total: Math.max(estimate, reachable), capped: true, reachable }
}

const isPostgres = (q: Q) => q.getExecutor().adapter instanceof PostgresAdapter

/**
 * A search's page of hits, each row also carrying the counts (SearchCounts), and the counts alone, for when the page
 * holds no row (a page past the end, or no match); undefined when the scope holds nothing to search.
 */
export function searchQueries(q: Q, req: SearchRequest): { page: Compilable<SearchHit>; counts: Compilable<SearchCounts> } | undefined {
  const queries = isPostgres(q) ? postgresQueries(req) : sqliteQueries(req)
  return queries && { page: { compile: () => queries.page.compile(q) }, counts: { compile: () => queries.counts.compile(q) } }
}

// --- SQLite: FTS5 ---------------------------------------------------------------------------------------------------

/** An FTS5 string: the text between double quotes, a double quote doubled. Whatever it holds is only ever words. */
const fts = (text: string) => `"${text.replaceAll('"', '""')}"`

/** A prefix read as words: the phrase's words before the last, and the range of the index's words the last begins. */
interface Expansion {
  lead: string
  from: string
  to: string
}

/**
 * A prefix term FTS5 can read as a list of words instead: its text printable ASCII (so the index splits it into the
 * same words, and folds them as toLowerCase does), so the words of the index that begin with its last word are exactly
 * a range of its vocabulary. A text with other characters (an accent typed apart from its letter, say) keeps FTS5's own
 * prefix query, which splits and folds it as the index does.
 */
function expandablePrefix(t: SearchTerm): Expansion | undefined {
  const last = t.words[t.words.length - 1].toLowerCase()
  if (!t.prefix || !/^[\x20-\x7e]*$/.test(t.text) || !/^[a-z0-9]+$/.test(last)) return undefined
  const to = last.slice(0, -1) + String.fromCharCode(last.charCodeAt(last.length - 1) + 1)
  return {
    lead: t.words
      .slice(0, -1)
      .map((w) => `${w} `)
      .join(''),
    from: last,
    to,
  }
}

/** A piece of a MATCH expression: its text, or the i-th term's prefix as the words it stands for (prefixWords). */
type Piece = string | { prefix: number }

/** The MATCH expression: the terms in these columns, the kinds and what the caller sees in the scope words. */
function matchExpression(
  req: Pick<SearchRequest, 'terms' | 'kinds' | 'scope'>,
  expansions: readonly (Expansion | undefined)[],
  columns = '{title body}',
): Piece[] | undefined {
  const text: Piece[] = []
  req.terms.forEach((t, i) => {
    if (i > 0) text.push(' AND ')
    text.push(expansions[i] ? { prefix: i } : `${fts(t.text)}${t.prefix ? ' *' : ''}`)
  })
  const parts: Piece[][] = [[`${columns} : (`, ...text, ')']]
  if (req.kinds.length < SEARCH_KINDS.length) parts.push([`scope : (${req.kinds.map((k) => fts(`k${k}`)).join(' OR ')})`])
  const { boards, boardless } = req.scope
  const joined = () => parts.flatMap((p, i) => [i > 0 ? ') AND (' : '(', ...p]).concat(')')
  if ('only' in boards) {
    const seen = boards.only.map((b) => fts(`b${b}`))
    if (boardless === 'all') seen.push(fts('nob'))
    else if (boardless !== 'none') seen.push(fts(`o${boardless.creator}`))
    if (!seen.length) return undefined
    parts.push([`scope : (${seen.join(' OR ')})`])
    return joined()
  }
  // Every board but some: a trashed card and its comments are `hidden`, notes on no board are `nob` (with o<creator>).
  const unseen = [fts('hidden'), ...boards.except.map((b) => fts(`b${b}`))]
  if (boardless === 'none') unseen.push(fts('nob'))
  else if (boardless !== 'all') unseen.push(`(${fts('nob')} NOT ${fts(`o${boardless.creator}`)})`)
  return ['(', ...joined(), `) NOT (scope : (${unseen.join(' OR ')}))`]
}

/** Words of the index a prefix is read as, at most this many (past it, FTS5's own prefix query). */
const PREFIX_WORDS = 32

/**
 * The words of the index (title or body) that begin with the term's prefix, as FTS5 phrases ORed: FTS5 reads each
 * one's list in rowid order and stops at the statement's limit, where its own prefix query without a prefix index
 * gathers every such word's whole list into one first, in each cursor of the statement (three times the cost on
 * 100,000 cards). None, or more than PREFIX_WORDS: the prefix query as it is. `temp.search_vocab` is the index's
 * vocabulary (src/db/connection.ts).
 */
function prefixWords(t: SearchTerm, { lead, from, to }: Expansion): RawBuilder<string> {
  return sql<string>`(SELECT CASE WHEN count(*) BETWEEN 1 AND ${sql.lit(PREFIX_WORDS)}
      THEN '(' || group_concat(${`"${lead}`} || term || '"', ' OR ') || ')' ELSE ${`${fts(t.text)} *`} END
    FROM (SELECT DISTINCT term FROM temp.search_vocab WHERE term >= ${from} AND term < ${to} AND col <> 'scope'
      LIMIT ${sql.lit(PREFIX_WORDS + 1)}))`
}

/** bm25 with a title match worth ten of the body's; the scope column counts for nothing. */
const BM25 = sql`bm25(search_fts, 10.0, 1.0, 0.0)`
const SNIPPET_WORDS = 24

/** A whole number written into a statement (the page's size and offset), never text. */
function wholeNumber(n: number): RawBuilder<unknown> {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a whole number: ${n}`)
  return sql.lit(n)
}

function sqliteQueries(req: SearchRequest) {
  const expansions = req.terms.map(expandablePrefix)
  const pieces = matchExpression(req, expansions)
  const titlePieces = matchExpression(req, expansions, '{title}')
  if (pieces === undefined || titlePieces === undefined) return undefined
  // With no prefix read as words the expressions are parameters; else made once by the statement (`m`, below).
  const expanded = expansions.some((e) => e !== undefined)
  const text = (ps: Piece[]) => {
    const merged = ps.reduce<Piece[]>((out, p) => {
      const last = out[out.length - 1]
      if (typeof p === 'string' && typeof last === 'string') out[out.length - 1] = last + p
      else out.push(p)
      return out
    }, [])
    return sql.join(
      merged.map((p) => (typeof p === 'string' ? sql`${p}` : sql.ref(`w.p${p.prefix}`))),
      sql` || `,
    )
  }
  const expr = expanded ? sql`(SELECT e FROM m)` : sql`${pieces.join('')}`
  const titleExpr = expanded ? sql`(SELECT te FROM m)` : sql`${titlePieces.join('')}`
  const words = req.terms.flatMap((t, i) => {
    const e = expansions[i]
    return e ? [sql`${prefixWords(t, e)} AS ${sql.ref(`p${i}`)}`] : []
  })
  const made = expanded
    ? sql`w AS MATERIALIZED (SELECT ${sql.join(words)}), m AS MATERIALIZED (SELECT ${text(pieces)} AS e, ${text(titlePieces)} AS te FROM w), `
    : sql``
  const { matches, titles } = req.bounds ?? SEARCH_BOUNDS
  const snippet = (column: number) => sql`snippet(search_fts, ${sql.lit(column)}, '«', '»', '…', ${sql.lit(SNIPPET_WORDS)})`
  // The newest matches, one more than the bound (there are more then); past it, the newest title matches older than
  // those, and the oldest match, for the estimate. The index reads each in rowid order and stops at its limit, so a
  // broad word costs about as much as a narrow one. Below the bound the last two read an empty rowid range (a condition
  // on no table would not spare their scan).
  const matchedRows = sql`SELECT rowid AS id FROM search_fts WHERE search_fts MATCH ${expr} ORDER BY rowid DESC LIMIT ${sql.lit(matches + 1)}`
  const below = sql`(SELECT CASE WHEN count(*) > ${sql.lit(matches)} THEN min(id) ELSE 0 END FROM a)`
  const older = sql`t AS MATERIALIZED (SELECT rowid AS id FROM search_fts WHERE search_fts MATCH ${titleExpr} AND rowid < ${below}
        ORDER BY rowid DESC LIMIT ${sql.lit(titles)}),
      o AS MATERIALIZED (SELECT rowid AS id FROM search_fts WHERE search_fts MATCH ${expr} AND rowid < ${below} ORDER BY rowid LIMIT 1)`
  const counts = sql`(SELECT count(*) FROM a) AS matched, (SELECT count(*) FROM t) AS titles,
      (SELECT max(id) - min(id) + 1 FROM a) AS covered, (SELECT max(id) FROM a) - (SELECT id FROM o) + 1 AS whole, NULL AS every`
  return {
    counts: sql<SearchCounts>`WITH ${made}a AS MATERIALIZED (${matchedRows}), ${older} SELECT ${counts}`,
    // The bounded matches and the older title matches ranked in one pass from the oldest of them (bm25 counts each
    // term's matches in the whole index once a cursor: one cursor, not two, is a third less work for a broad text; the
    // rows between them that are neither are only stepped over), the page's rows taken, then their snippets and records
    // in one more pass over the matches between the page's first and last rowid (one cursor: a prefix's terms are
    // gathered once, where a lookup per row would gather them again for each), the snippets made for the page's rows
    // only. The page's size and offset are written into the statement (whole numbers): bound as parameters, they cost
    // SQLite about a third of a millisecond a search more.
    page: sql<SearchHit>`WITH ${made}a AS MATERIALIZED (${matchedRows}), ${older},
      ranked AS MATERIALIZED (SELECT rowid AS id, ${BM25} AS r FROM search_fts WHERE search_fts MATCH ${expr}
        AND rowid >= (SELECT min(id) FROM (SELECT id FROM a UNION ALL SELECT id FROM t))
        AND (rowid >= (SELECT min(id) FROM a) OR +rowid IN (SELECT id FROM t))),
      page AS MATERIALIZED (SELECT id, r FROM ranked ORDER BY r, id LIMIT ${wholeNumber(req.limit)} OFFSET ${wholeNumber(req.offset)})
      SELECT search_docs.kind, search_docs.record_id, -page.r AS score, ${snippet(0)} AS title_snippet, ${snippet(1)} AS body_snippet, ${counts}
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

/**
 * The same terms in a title only (weight A), as words of letters and digits (a match of it is also tested against the
 * whole tsquery, so a word the parser would split otherwise only loses a candidate).
 */
function titleTsquery(terms: readonly SearchTerm[]): RawBuilder<unknown> {
  const words = (t: SearchTerm) => t.words.map((w, i) => `${lexeme(w)}:${t.prefix && i === t.words.length - 1 ? '*' : ''}A`).join(' <-> ')
  return sql`to_tsquery('simple', taskd_fold(${terms.map((t) => `(${words(t)})`).join(' & ')}))`
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
  const { matches, titles } = req.bounds ?? SEARCH_BOUNDS
  const seen = visible(req.kinds, req.scope)
  const headline = (text: RawBuilder<unknown>) => sql`ts_headline('simple', ${text}, ${query}, ${HEADLINE})`
  // A title match (weight A) counts ten times a body match (B); the rank is normalized to 0..1 (rank / (rank + 1)).
  const rank = sql`ts_rank_cd('{0, 0, 0.1, 1}', pick.tsv, ${query}, 32)`
  // One read of the GIN index's matches in the table's order, stopped past the bound and twice `titles` more (a GIN
  // index finds every match at once; the table is read only that far): the first one more than the bound (there are more then), and past
  // it up to `titles` further ones whose title matches (weight A). Only these are ranked.
  const read = matches + 1 + 2 * titles
  const scanned = sql`s AS MATERIALIZED (SELECT d.kind, d.record_id, d.tsv, (d.ctid::text::point)[0] AS block, d.tsv @@ ${titleTsquery(req.terms)} AS titled
        FROM search_docs d WHERE d.tsv @@ ${query} AND ${seen} LIMIT ${sql.lit(read)}),
      num AS MATERIALIZED (SELECT kind, record_id, tsv, block, titled, row_number() OVER () AS i FROM s),
      pick AS MATERIALIZED (SELECT kind, record_id, tsv, i <= ${sql.lit(matches + 1)} AS first FROM (
          SELECT kind, record_id, tsv, i, titled, count(*) FILTER (WHERE titled AND i > ${sql.lit(matches + 1)}) OVER (ORDER BY i) AS later FROM num) x
        WHERE i <= ${sql.lit(matches + 1)} OR (later <= ${sql.lit(titles)} AND i > ${sql.lit(matches + 1)} AND titled
          AND (SELECT count(*) FROM num) > ${sql.lit(matches)}))`
  // The estimate's units: the table pages the matches read span, of the table's.
  const counts = sql`(SELECT count(*) FROM pick WHERE first) AS matched, (SELECT count(*) FROM pick WHERE NOT first) AS titles,
      (SELECT max(block) + 1 FROM num WHERE i <= ${sql.lit(matches + 1)}) AS covered,
      pg_relation_size('search_docs') / current_setting('block_size')::int AS whole,
      (SELECT CASE WHEN count(*) < ${sql.lit(read)} THEN count(*) END FROM num) AS every`
  return {
    counts: sql<SearchCounts>`WITH ${scanned} SELECT ${counts}`,
    page: sql<SearchHit>`WITH ${scanned},
      page AS MATERIALIZED (SELECT pick.kind, pick.record_id, ${rank} AS score FROM pick
        ORDER BY score DESC, pick.kind, pick.record_id LIMIT ${req.limit} OFFSET ${req.offset})
      SELECT page.kind, page.record_id, page.score,
        ${headline(sql`COALESCE(c.title, n.title, '')`)} AS title_snippet,
        ${headline(sql`COALESCE(c.description, m.body, n.body, '')`)} AS body_snippet, ${counts}
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
