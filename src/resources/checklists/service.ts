// Checklists on tasks: whoever sees the card reads them, and writes them with a write token. Ticking and unticking an
// item emit their events in the change's transaction.
import { type Actor, creatorId } from '../../access/roles.js'
import { visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q, Tx } from '../../db/database.js'
import { distinctPosition } from '../../db/positions.js'
import type { CardsTable, ChecklistItemsTable, ChecklistsTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, notFound } from '../../errors.js'
import { emitEvent } from '../../events/emit.js'
import { newId } from '../../ids.js'
import { listPage, parseExpand, type ListParams } from '../../query/list-page.js'
import { expandCard, taskEventRefs } from '../cards/present.js'
import { cardToChange } from '../cards/service.js'
import { getCard } from '../cards/store.js'
import { checklistViews, itemEventData } from './present.js'
import { CHECKLIST_LIST } from './query.js'
import {
  MAX_CHECKLISTS_PER_CARD,
  MAX_ITEMS_PER_CHECKLIST,
  type ChecklistItemView,
  type ChecklistView,
  type CreateChecklistInput,
  type CreateChecklistItemInput,
  type UpdateChecklistInput,
  type UpdateChecklistItemInput,
} from './schema.js'
import {
  countChecklistsOfCard,
  countItems,
  deleteChecklistRow,
  deleteItemRow,
  getChecklist,
  getItem,
  insertChecklist,
  insertItems,
  lockChecklist,
  updateChecklistRow,
  updateItemRow,
  visibleChecklistsQuery,
} from './store.js'

/** For the kickoff dispatcher's AI turn: a card's checklists and their items, as stored. */
export { checklistsOfCards, itemsOfChecklists } from './store.js'

/** A checklist and its card, if the caller sees the card's board; 404 otherwise. `lock`: for a change of it or its items. */
async function visibleChecklist(q: Q, actor: Actor, id: string, lock = false): Promise<{ checklist: ChecklistsTable; card: CardsTable }> {
  const checklist = await (lock ? lockChecklist : getChecklist)(q, id)
  if (!checklist) throw notFound('checklist')
  return { checklist, card: await visibleOnBoard(q, actor, await getCard(q, checklist.card_id), 'checklist') }
}

/** An item of a visible checklist, with the checklist locked; an item of another checklist is not found either. */
async function itemToChange(q: Q, actor: Actor, checklistId: string, itemId: string) {
  const found = await visibleChecklist(q, actor, checklistId, true)
  const item = await getItem(q, itemId)
  if (item?.checklist_id !== checklistId) throw notFound('checklist item')
  return { ...found, item }
}

const viewOf = async (q: Q, id: string): Promise<ChecklistView> => (await checklistViews(q, [(await getChecklist(q, id))!]))[0]

/** The item's record and its whole checklist (so its new order is visible). */
async function itemAnswer(q: Q, checklistId: string, itemId: string): Promise<{ checklist_item: ChecklistItemView; checklist: ChecklistView }> {
  const checklist = await viewOf(q, checklistId)
  return { checklist_item: checklist.items.find((i) => i.id === itemId)!, checklist }
}

export function listChecklists(deps: Deps, actor: Actor, params: ListParams & { card?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleChecklistsQuery(q, actor.user, params.card),
    CHECKLIST_LIST,
    params,
    async (rows: ChecklistsTable[], expand) => expandCard(q, await checklistViews(q, rows), expand),
    { anchored: Boolean(params.card) },
  )
}

export async function getChecklistFor(deps: Deps, actor: Actor, id: string, expand?: string) {
  const { q } = deps.db
  const { checklist } = await visibleChecklist(q, actor, id)
  return (await expandCard(q, await checklistViews(q, [checklist]), parseExpand(expand, CHECKLIST_LIST.expand)))[0]
}

export const createChecklist = (deps: Deps, actor: Actor, input: CreateChecklistInput): Promise<ChecklistView> =>
  deps.db.tx(async ({ q }) => {
    const card = await cardToChange(q, actor, input.card) // locked: checklists added at once are counted one after the other
    if ((await countChecklistsOfCard(q, card.id)) >= MAX_CHECKLISTS_PER_CARD)
      throw conflict(`A card holds at most ${MAX_CHECKLISTS_PER_CARD} checklists; delete one first.`)
    const at = isoAt(deps.clock.now())
    const id = newId()
    const position = await distinctPosition(q, 'checklists', card.id, id)
    await insertChecklist(q, { id, card_id: card.id, title: input.title, position, created_by: creatorId(actor), created_at: at, updated_at: at })
    const item = (text: string, i: number): ChecklistItemsTable => ({
      id: newId(),
      checklist_id: id,
      text,
      position: i + 1,
      completed: 0,
      completed_at: null,
      completed_by: null,
      created_at: at,
      updated_at: at,
    })
    await insertItems(q, (input.items ?? []).map(item))
    return viewOf(q, id)
  })

/** Renames a checklist or moves it among its card's checklists; a change that changes nothing writes nothing. */
export const updateChecklist = (deps: Deps, actor: Actor, id: string, input: UpdateChecklistInput): Promise<ChecklistView> =>
  deps.db.tx(async ({ q }) => {
    const { checklist } = await visibleChecklist(q, actor, id, true)
    const set: Partial<ChecklistsTable> = {}
    if (input.title !== undefined && input.title !== checklist.title) set.title = input.title
    if (input.position !== undefined && input.position !== checklist.position)
      set.position = await distinctPosition(q, 'checklists', checklist.card_id, id, input.position)
    if (Object.keys(set).length) await updateChecklistRow(q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    return viewOf(q, id)
  })

/** Deletes a checklist with its items. */
export const deleteChecklist = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    await visibleChecklist(q, actor, id, true)
    await deleteChecklistRow(q, id)
  })

export const addChecklistItem = (deps: Deps, actor: Actor, checklistId: string, input: CreateChecklistItemInput) =>
  deps.db.tx(async ({ q }) => {
    await visibleChecklist(q, actor, checklistId, true)
    if ((await countItems(q, checklistId)) >= MAX_ITEMS_PER_CHECKLIST)
      throw conflict(`A checklist holds at most ${MAX_ITEMS_PER_CHECKLIST} items; delete one first.`)
    const at = isoAt(deps.clock.now())
    const id = newId()
    const position = await distinctPosition(q, 'checklist_items', checklistId, id, input.position)
    await insertItems(q, [
      { id, checklist_id: checklistId, text: input.text, position, completed: 0, completed_at: null, completed_by: null, created_at: at, updated_at: at },
    ])
    await updateChecklistRow(q, checklistId, { updated_at: at })
    return itemAnswer(q, checklistId, id)
  })

/**
 * Renames, ticks or unticks, or moves an item. Ticking records who (none for an automation) and when, and emits
 * checklist.item_completed; unticking clears both and emits checklist.item_uncompleted; ticking a ticked item changes nothing.
 */
export const updateChecklistItem = (deps: Deps, actor: Actor, checklistId: string, itemId: string, input: UpdateChecklistItemInput) =>
  deps.db.tx(async (tx) => {
    const { q } = tx
    const { checklist, card, item } = await itemToChange(q, actor, checklistId, itemId)
    const at = isoAt(deps.clock.now())
    const set: Partial<ChecklistItemsTable> = {}
    if (input.text !== undefined && input.text !== item.text) set.text = input.text
    if (input.completed !== undefined && input.completed !== (item.completed === 1))
      Object.assign(
        set,
        input.completed ? { completed: 1, completed_at: at, completed_by: creatorId(actor) } : { completed: 0, completed_at: null, completed_by: null },
      )
    if (input.position !== undefined && input.position !== item.position)
      set.position = await distinctPosition(q, 'checklist_items', checklistId, itemId, input.position)
    if (Object.keys(set).length) {
      await updateItemRow(q, itemId, { ...set, updated_at: at })
      await updateChecklistRow(q, checklistId, { updated_at: at })
    }
    if (set.completed !== undefined) await emitItemEvent(deps, tx, actor, { ...item, ...set }, checklist, card)
    return itemAnswer(q, checklistId, itemId)
  })

async function emitItemEvent(deps: Deps, tx: Tx, actor: Actor, item: ChecklistItemsTable, checklist: ChecklistsTable, card: CardsTable): Promise<void> {
  await emitEvent(deps, tx, {
    name: item.completed ? 'checklist.item_completed' : 'checklist.item_uncompleted',
    boardId: card.board_id,
    data: { ...itemEventData(item, checklist), ...(await taskEventRefs(tx.q, deps.config, card)) },
    actor,
  })
}

export const deleteChecklistItem = (deps: Deps, actor: Actor, checklistId: string, itemId: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    await itemToChange(q, actor, checklistId, itemId)
    await deleteItemRow(q, itemId)
    await updateChecklistRow(q, checklistId, { updated_at: isoAt(deps.clock.now()) })
  })
