// Checklists in API shape, with their items and the names of who made and ticked them: three queries for any number.
import type { Q } from '../../db/database.js'
import type { ChecklistItemsTable, ChecklistsTable } from '../../db/types.js'
import type { UserRef } from '../../http/schemas.js'
import { userRefsOf } from '../users/present.js'
import type { ChecklistItemView, ChecklistView } from './schema.js'
import { checklistsOfCards, itemsOfChecklists } from './store.js'
import type { EventData } from '../../events/fields.js'

/** Rows grouped by a key, each group in the rows' order. */
function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const r of rows) (groups.get(key(r)) ?? groups.set(key(r), []).get(key(r))!).push(r)
  return groups
}

const itemView = (i: ChecklistItemsTable, ref: (id: string | null) => UserRef | null): ChecklistItemView => ({
  id: i.id,
  text: i.text,
  completed: i.completed === 1,
  completed_at: i.completed_at,
  completed_by: ref(i.completed_by),
  position: i.position,
})

export async function checklistViews(q: Q, rows: readonly ChecklistsTable[]): Promise<ChecklistView[]> {
  const items = await itemsOfChecklists(
    q,
    rows.map((r) => r.id),
  )
  const ref = await userRefsOf(q, [...rows.map((r) => r.created_by), ...items.map((i) => i.completed_by)])
  const byChecklist = groupBy(items, (i) => i.checklist_id)
  return rows.map((r) => ({
    id: r.id,
    card: r.card_id,
    title: r.title,
    position: r.position,
    items: (byChecklist.get(r.id) ?? []).map((i) => itemView(i, ref)),
    created_by: ref(r.created_by),
    created: r.created_at,
    updated: r.updated_at,
  }))
}

/** `expand=checklists` of cards: each card's checklists with their items, in position order. */
export async function checklistsByCard(q: Q, cardIds: readonly string[]): Promise<Map<string, ChecklistView[]>> {
  return groupBy(await checklistViews(q, await checklistsOfCards(q, cardIds)), (c) => c.card)
}

/** The `data` of checklist item events, beside the task references. */
export const itemEventData = (item: ChecklistItemsTable, checklist: ChecklistsTable): Omit<EventData<'checklist.item_completed'>, 'card' | 'board'> => ({
  id: item.id,
  text: item.text,
  checklist: { id: checklist.id, name: checklist.title },
})
