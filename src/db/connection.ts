// What every SQLite connection of taskd's gets (the write connection and the read processes'): the SQL functions taskd's
// queries use that SQLite lacks, the size of its page cache, and the search index's vocabulary.
import crypto from 'node:crypto'
import type Database from 'better-sqlite3'

/**
 * SQLite's own default page cache, 2 MB, where better-sqlite3 builds SQLite with 16 MB a connection: the pages a write or a
 * list touches again are few (the ends of the indexes a new row goes to, the index pages of a board), the operating
 * system caches the file as well, and 14 MB more a connection were a tenth of the server's memory under load
 * (bench/README.md, "Memory").
 */
const PAGE_CACHE = 'cache_size = -2000'

export function setUpConnection(raw: Database.Database): void {
  raw.pragma(PAGE_CACHE)
  // The words of the search index, one row a word and column (a search reads a prefix as the words it begins:
  // src/db/full-text.ts). A table of the connection's own (temp), so a read-only connection has it and the file's
  // schema does not change; it reads search_fts when asked, so it may be made before the migrations.
  raw.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_vocab USING fts5vocab(main, search_fts, col)')
  /** taskd_fold: Unicode case folding (É → é), as JavaScript's toLowerCase; PostgreSQL has the same function in its schema. */
  raw.function('taskd_fold', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s))
  /** taskd_sha256: the hex SHA-256 of a BLOB (or text); the migration that split files into chunks gave each file its hash. */
  raw.function('taskd_sha256', { deterministic: true }, (b: unknown) =>
    b === null
      ? null
      : crypto
          .createHash('sha256')
          .update(typeof b === 'string' ? b : (b as Buffer))
          .digest('hex'),
  )
}
