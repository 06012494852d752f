// Many cards put straight into a list's database, in one transaction (through the API they would take minutes): for the
// stall test (test/api/stall.test.ts) and the move benchmark (bench/cascade.js, which imports the built copy).
import { openDatabase } from '../../src/db/open.js'
import type { TestDatabase } from './database.js'

export interface BulkCards {
  boardId: string
  listId: string
  /** The board's key prefix (its cards are PREFIX-1, PREFIX-2, ...). */
  keyPrefix: string
  count: number
}

/**
 * Writes `count` cards at the end of an empty list (ids card00000001, ..., sorting as their positions), with the board's
 * next key moved past them, and closes its connection.
 */
export async function insertCards(database: TestDatabase, { boardId, listId, keyPrefix, count }: BulkCards): Promise<void> {
  const db = await openDatabase({ ...database, readWorkers: 0 })
  try {
    await db.tx(async ({ q }) => {
      const owner = (await q.selectFrom('users').select('id').executeTakeFirstOrThrow()).id
      const at = '2026-11-01T00:00:00.000Z'
      for (let start = 1; start <= count; start += 1000) {
        const rows = Array.from({ length: Math.min(1000, count - start + 1) }, (_, k) => start + k).map((i) => ({
          id: `card${String(i).padStart(8, '0')}`,
          board_id: boardId,
          list_id: listId,
          key_num: i,
          key: `${keyPrefix}-${i}`,
          title: `card ${i}`,
          description: 'a longer description of the card',
          position: i,
          priority: i % 5,
          completed: 0,
          archived: 0,
          trashed: 0,
          created_by: owner,
          created_at: at,
          updated_at: at,
        }))
        await q.insertInto('cards').values(rows).execute()
      }
      await q
        .updateTable('boards')
        .set({ next_key: count + 1 })
        .where('id', '=', boardId)
        .execute()
    })
  } finally {
    await db.close()
  }
}
