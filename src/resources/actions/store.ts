// The rows of a workspace export, and their way back in (`taskd import`).
import { sql } from 'kysely'
import type { Db, Q } from '../../db/database.js'

/** The exported tables, parents before children, so an import inserts them in this order. */
export const EXPORTED = [
  'workspace',
  'users',
  'teams',
  'team_members',
  'boards',
  'key_prefixes',
  'board_members',
  'lists',
  'cards',
  'card_assignees',
  'card_watchers',
  'tags',
  'card_tags',
  'comments',
  'comment_mentions',
  'checklists',
  'checklist_items',
  'time_entries',
  'timesheet_approvals',
  'user_billing_rates',
  'note_folders',
  'notes',
  'note_publications',
] as const
export type ExportedTable = (typeof EXPORTED)[number] | 'files'

/** The primary key of each table without an `id`: every export lists rows in key order, the same after an import. */
const KEY: Partial<Record<ExportedTable, string[]>> = {
  team_members: ['team_id', 'user_id'],
  key_prefixes: ['prefix'],
  board_members: ['board_id', 'user_id'],
  card_assignees: ['card_id', 'user_id'],
  card_watchers: ['card_id', 'user_id'],
  card_tags: ['card_id', 'tag_id'],
  comment_mentions: ['comment_id', 'user_id'],
}

/** One table's rows in key order, read off the event loop. `files` (with their bytes) only for `taskd export`. */
export const exportTable = (db: Db, table: ExportedTable): Promise<Record<string, unknown>[]> =>
  db.read((KEY[table] ?? ['id']).reduce((query, column) => query.orderBy(sql.ref(column)), db.q.selectFrom(table).selectAll()))

/** Every record a workspace export carries; token hashes, webhooks and their secrets stay out. */
export const exportRows = async (db: Db) =>
  Object.fromEntries(await Promise.all(EXPORTED.map(async (table) => [table, await exportTable(db, table)]))) as Record<(typeof EXPORTED)[number], unknown[]>

/** The exported tables (and files) that have rows, with their counts: an import goes into a database without any. */
export async function filledTables(q: Q): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of [...EXPORTED.filter((t) => t !== 'workspace'), 'files'] as const) {
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
  const perStatement = Math.max(1, Math.floor(10_000 / Math.max(1, Object.keys(rows[0] ?? {}).length)))
  for (let i = 0; i < rows.length; i += perStatement)
    await q
      .insertInto(table)
      .values(rows.slice(i, i + perStatement) as never)
      .execute()
}
