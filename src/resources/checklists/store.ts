// Checklist and checklist item queries.
import { sql } from 'kysely'
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import { forUpdate } from '../../db/dialect.js'
import type { ChecklistItemsTable, ChecklistsTable } from '../../db/types.js'

const checklistById = (q: Q, id: string) => q.selectFrom('checklists').selectAll().where('id', '=', id)
export const getChecklist = (q: Q, id: string) => checklistById(q, id).executeTakeFirst()
/** A checklist whose items are about to change, locked until the transaction ends (see forUpdate): its changes take turns. */
export const lockChecklist = (q: Q, id: string) => forUpdate(q, checklistById(q, id)).executeTakeFirst()
export const insertChecklist = (q: Q, row: ChecklistsTable) => q.insertInto('checklists').values(row).execute()
export const updateChecklistRow = (q: Q, id: string, set: Partial<ChecklistsTable>) => q.updateTable('checklists').set(set).where('id', '=', id).execute()
export const deleteChecklistRow = (q: Q, id: string) => q.deleteFrom('checklists').where('id', '=', id).execute()

/** The checklists of these cards, each card's in position order. */
export const checklistsOfCards = (q: Q, cardIds: readonly string[]): Promise<ChecklistsTable[]> =>
  cardIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('checklists')
        .selectAll()
        .where('card_id', 'in', [...new Set(cardIds)])
        .orderBy('card_id')
        .orderBy('position')
        .orderBy('created_at')
        .orderBy('id')
        .execute()

export const getItem = (q: Q, id: string) => q.selectFrom('checklist_items').selectAll().where('id', '=', id).executeTakeFirst()
export const insertItems = (q: Q, rows: ChecklistItemsTable[]) => (rows.length ? q.insertInto('checklist_items').values(rows).execute() : Promise.resolve([]))
export const updateItemRow = (q: Q, id: string, set: Partial<ChecklistItemsTable>) => q.updateTable('checklist_items').set(set).where('id', '=', id).execute()
export const deleteItemRow = (q: Q, id: string) => q.deleteFrom('checklist_items').where('id', '=', id).execute()

/** The items of these checklists, each checklist's in position order. */
export const itemsOfChecklists = (q: Q, checklistIds: readonly string[]): Promise<ChecklistItemsTable[]> =>
  checklistIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('checklist_items')
        .selectAll()
        .where('checklist_id', 'in', [...new Set(checklistIds)])
        .orderBy('checklist_id')
        .orderBy('position')
        .orderBy('created_at')
        .orderBy('id')
        .execute()

export const countChecklistsOfCard = async (q: Q, cardId: string): Promise<number> =>
  Number(
    (
      await q
        .selectFrom('checklists')
        .select(sql<number>`count(*)`.as('n'))
        .where('card_id', '=', cardId)
        .executeTakeFirstOrThrow()
    ).n,
  )
export const countItems = async (q: Q, checklistId: string): Promise<number> =>
  Number(
    (
      await q
        .selectFrom('checklist_items')
        .select(sql<number>`count(*)`.as('n'))
        .where('checklist_id', '=', checklistId)
        .executeTakeFirstOrThrow()
    ).n,
  )

/** Ticked and all items over all the checklists of each card, in one query; a card without items is absent. */
export async function progressOfCards(q: Q, cardIds: readonly string[]): Promise<Map<string, { done: number; total: number }>> {
  if (cardIds.length === 0) return new Map()
  const rows = await q
    .selectFrom('checklist_items')
    .innerJoin('checklists', 'checklists.id', 'checklist_items.checklist_id')
    .select(['checklists.card_id', sql<number>`count(*)`.as('total'), sql<number>`sum(checklist_items.completed)`.as('done')])
    .where('checklists.card_id', 'in', [...new Set(cardIds)])
    .groupBy('checklists.card_id')
    .execute()
  return new Map(rows.map((r) => [r.card_id, { done: Number(r.done), total: Number(r.total) }]))
}

/** Base query of the checklist list: the checklists on cards of the boards a user sees (none in the trash), optionally of one card. */
export function visibleChecklistsQuery(q: Q, viewer: Viewer, cardId?: string) {
  const query = q.selectFrom('checklists').innerJoin('cards', 'cards.id', 'checklists.card_id').where('cards.board_id', 'in', visibleBoardIds(q, viewer))
  return cardId ? query.where('checklists.card_id', '=', cardId) : query
}
