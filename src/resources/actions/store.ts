// The rows of a workspace export, and their way back in (`taskd import`).
import { type Expression, type SqlBool, sql } from 'kysely'
import type { Db, Q } from '../../db/database.js'
import type { DB } from '../../db/types.js'

export type ExportedTable = keyof DB
/** A table a family carries in an export; `key` is its primary key when that is not `id`. */
export interface ExportedTableSpec {
  table: ExportedTable
  key?: readonly string[]
  /** Only the rows that meet this are exported (the rest belong to what an export leaves out). */
  where?: Expression<SqlBool>
  /**
   * A BLOB (bytea) column: `taskd export` writes it in base64 and `taskd import` reads it back, a row per statement;
   * the export route leaves such a table out (its bytes are the CLI's to carry).
   */
  bytes?: string
  /**
   * A log an import adds to (the audit log): its rows do not make a database count as filled, so the entries a
   * command wrote into a new database (an export of it, a token made) do not stop the import.
   */
  appendOnly?: boolean
}

/**
 * The exported tables, parents before children, so an import inserts them in this order. Filled from the families'
 * `exports` by src/resources/index.ts (this file sits below the module list, so it cannot read it).
 */
export const EXPORTED: ExportedTable[] = []
/** The primary key of each table without an `id`: every export lists rows in key order, the same after an import. */
const KEY = new Map<ExportedTable, readonly string[]>()
const WHERE = new Map<ExportedTable, Expression<SqlBool>>()
/** The BLOB column of each table that has one. */
export const BYTES = new Map<ExportedTable, string>()
/** The tables an import appends to (see ExportedTableSpec.appendOnly). */
const APPEND_ONLY = new Set<ExportedTable>()

export function registerExported(specs: readonly ExportedTableSpec[]): void {
  for (const { table, key, where, bytes, appendOnly } of specs) {
    if (EXPORTED.includes(table)) throw new Error(`table ${table} is exported twice`)
    EXPORTED.push(table)
    if (appendOnly) APPEND_ONLY.add(table)
    if (key) KEY.set(table, key)
    if (where) WHERE.set(table, where)
    if (bytes) BYTES.set(table, bytes)
  }
}

/** One table's rows in key order, read off the event loop (a BLOB column as a Buffer). */
export function exportTable(db: Db, table: ExportedTable): Promise<Record<string, unknown>[]> {
  const where = WHERE.get(table)
  const rows = where ? db.q.selectFrom(table).selectAll().where(where) : db.q.selectFrom(table).selectAll()
  return db.read((KEY.get(table) ?? ['id']).reduce((query, column) => query.orderBy(sql.ref(column)), rows))
}

/** Every record the export route carries; token hashes, webhooks and their secrets stay out, and so do file bytes. */
export const exportRows = async (db: Db) =>
  Object.fromEntries(await Promise.all(EXPORTED.filter((t) => !BYTES.has(t)).map(async (table) => [table, await exportTable(db, table)]))) as Record<
    ExportedTable,
    unknown[]
  >

/** The exported tables that have rows, with their counts: an import goes into a database without any (logs aside). */
export async function filledTables(q: Q): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of EXPORTED.filter((t) => t !== 'workspace' && !APPEND_ONLY.has(t))) {
    const { n } = await q
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    if (Number(n) > 0) counts[table] = Number(n)
  }
  return counts
}

/** Inserts exported rows as they are (ids and all), a few hundred per statement; the workspace row replaces the one there. */
export async function insertRows(q: Q, table: ExportedTable, rows: Record<string, unknown>[]): Promise<void> {
  if (table === 'workspace') await q.deleteFrom('workspace').execute()
  // A row of bytes (a file's chunk, 1 MB) goes alone: a statement never holds more than one.
  const perStatement = BYTES.has(table) ? 1 : Math.max(1, Math.floor(10_000 / Math.max(1, Object.keys(rows[0] ?? {}).length)))
  for (let i = 0; i < rows.length; i += perStatement)
    await q
      .insertInto(table)
      .values(rows.slice(i, i + perStatement) as never)
      .execute()
}
