// Whether a SQLite file's schema is exactly what taskd's migrations make: no table, index, trigger or view taskd does not
// create, and none of its own altered. `taskd restore` asks this of a backup before anything of it is put in place.
import Database from 'better-sqlite3'
import { sqliteBinding } from '../assets.js'
import { setUpConnection } from './connection.js'
import { droppedAfter, migrateSqlite } from './migrate.js'

interface SchemaObject {
  type: string
  name: string
  tbl_name: string
  sql: string | null
}

/** Statistics tables SQLite itself makes (ANALYZE, `PRAGMA optimize`): they change no behaviour but query plans. */
const STAT_TABLE = /^CREATE TABLE sqlite_stat[1-4]\([a-z,]+\)$/

const objectsOf = (raw: Database.Database): SchemaObject[] =>
  (raw.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all() as SchemaObject[]).filter(
    (o) => !(o.type === 'table' && /^sqlite_stat[1-4]$/.test(o.name) && STAT_TABLE.test(o.sql ?? '')),
  )

/**
 * SQL text with comments dropped and spacing made uniform outside quotes, so the same definition reads the same whether
 * it came from the schema file or from a migration (whose ALTER TABLE splices text into the stored definition).
 */
function squash(text: string): string {
  let out = ''
  for (let i = 0; i < text.length;) {
    const c = text[i]
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c
      let j = i + 1
      while (j < text.length && !(text[j] === close && text[j + 1] !== close)) j += text[j] === close ? 2 : 1
      out += text.slice(i, j + 1)
      i = j + 1
    } else if (c === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n') i++
      out += ' '
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      i = end < 0 ? text.length : end + 2
      out += ' '
    } else {
      out += /\s/.test(c) ? ' ' : c
      i++
    }
  }
  return out
    .replace(/ +/g, ' ')
    .replace(/ ?([(),]) ?/g, '$1')
    .trim()
}

/** A table's definitions (columns and constraints) in a stable order, and what follows its list (WITHOUT ROWID, STRICT). */
function tableShape(sql: string): string {
  const text = squash(sql)
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) return text
  const items: string[] = []
  let depth = 0
  let start = open + 1
  let quote = ''
  for (let i = open + 1; i < close; i++) {
    const c = text[i]
    if (quote) {
      if (c === quote) quote = ''
    } else if (c === "'" || c === '"' || c === '`') quote = c
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === ',' && depth === 0) {
      items.push(text.slice(start, i))
      start = i + 1
    }
  }
  items.push(text.slice(start, close))
  return `${items.sort().join(' | ')} || ${text.slice(close + 1)}`
}

/** What must match between two objects of the same name: the table's columns as SQLite reads them and its definition, or the object's text. */
function shapeOf(raw: Database.Database, o: SchemaObject): string {
  if (o.type !== 'table' || o.sql === null) return `${o.tbl_name}: ${o.sql === null ? '' : squash(o.sql)}`
  const columns = raw.prepare('SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?)').all(o.name)
  return `${JSON.stringify(columns)} ${tableShape(o.sql)}`
}

let expected: Map<string, string> | undefined

/** The schema objects of a new database at this taskd's schema version, by `type name`. */
function expectedObjects(): Map<string, string> {
  if (!expected) {
    const raw = new Database(':memory:', { nativeBinding: sqliteBinding() })
    try {
      setUpConnection(raw)
      migrateSqlite(raw)
      expected = new Map(objectsOf(raw).map((o) => [`${o.type} ${o.name}`, shapeOf(raw, o)]))
    } finally {
      raw.close()
    }
  }
  return expected
}

/**
 * Objects of a database at schema version `version` that no version of taskd creates: any view, any table, index or
 * trigger whose name neither the current schema nor an older one a later step drops has (taskd's only triggers are
 * those that keep the search index). Asked before the file is
 * migrated, so nothing of such a file runs; `shapeDifferences` then compares the migrated copy in full.
 */
export function foreignObjects(raw: Database.Database, version: number): string[] {
  const dropped = droppedAfter(version)
  const known = new Set([...expectedObjects().keys(), ...dropped])
  // SQLite's own indexes of a table's UNIQUE and PRIMARY KEY constraints (sqlite_autoindex_<table>_<n>) go with it.
  const droppedTables = dropped.filter((d) => d.startsWith('table ')).map((d) => d.slice('table '.length))
  const ownIndexOfDropped = (key: string) => droppedTables.some((t) => new RegExp(`^index sqlite_autoindex_${t}_\\d+$`).test(key))
  return objectsOf(raw)
    .map((o) => `${o.type} ${o.name}`)
    .filter((key) => !known.has(key) && !ownIndexOfDropped(key))
}

/** How a database at the current schema version differs from a new one: objects extra, missing, or defined otherwise. */
export function shapeDifferences(raw: Database.Database): string[] {
  const want = expectedObjects()
  const have = new Map(objectsOf(raw).map((o) => [`${o.type} ${o.name}`, shapeOf(raw, o)]))
  const problems: string[] = []
  for (const [key, shape] of have) {
    if (!want.has(key)) problems.push(`${key} (not made by taskd)`)
    else if (want.get(key) !== shape) problems.push(`${key} (defined differently)`)
  }
  for (const key of want.keys()) if (!have.has(key)) problems.push(`${key} (missing)`)
  return problems
}
