// Milestones of a board. Closing one changes none of its cards; deleting one takes it off its cards first (each card
// with its card.updated event naming `milestone`), a chunk per transaction, then deletes it.
import { type Actor, creatorId } from '../../access/roles.js'
import { visibleBoard, visibleOnBoard } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import { inChunks, type Q } from '../../db/database.js'
import type { MilestonesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { emitEvent } from '../../events/emit.js'
import { notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { expandBoard } from '../boards/present.js'
import { clearMilestoneOfCards } from '../cards/service.js'
import { milestoneEventData, milestoneView, milestoneViews } from './present.js'
import { MILESTONE_LIST } from './query.js'
import type { CreateMilestoneInput, UpdateMilestoneInput } from './schema.js'
import { deleteMilestoneRow, getMilestone, insertMilestone, updateMilestoneRow, visibleMilestonesQuery } from './store.js'

const visibleMilestone = async (q: Q, actor: Actor, id: string): Promise<MilestonesTable> => visibleOnBoard(q, actor, await getMilestone(q, id), 'milestone')

/** A bare date stays a date; a date-time is stored as ISO 8601 UTC so text order is time order. */
const normalizeDate = (v: string | null | undefined) => (v == null || /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : new Date(v).toISOString())

export const getMilestoneFor = async (deps: Deps, actor: Actor, id: string) =>
  (await milestoneViews(deps.db.q, [await visibleMilestone(deps.db.q, actor, id)]))[0]

/** Milestones of the boards the caller sees, or of one board. */
export function listMilestones(deps: Deps, actor: Actor, params: ListParams & { board?: string }) {
  const { q } = deps.db
  return listPage(
    deps.db,
    visibleMilestonesQuery(q, actor.user, params.board),
    MILESTONE_LIST,
    params,
    async (rows: MilestonesTable[], expand) => expandBoard(q, await milestoneViews(q, rows), expand),
    { anchored: Boolean(params.board) },
  )
}

export function createMilestone(deps: Deps, actor: Actor, input: CreateMilestoneInput) {
  return deps.db.tx(async (tx) => {
    const board = await visibleBoard(tx.q, actor, input.board)
    const at = isoAt(deps.clock.now())
    const row: MilestonesTable = {
      id: newId(),
      board_id: board.id,
      name: input.name,
      description: input.description ?? '',
      due_date: normalizeDate(input.due_date) ?? null,
      state: input.state ?? 'open',
      created_by: creatorId(actor),
      created_at: at,
      updated_at: at,
    }
    await insertMilestone(tx.q, row)
    await emitEvent(deps, tx, { name: 'milestone.created', boardId: board.id, data: milestoneEventData(row, board), actor })
    return milestoneView(row)
  })
}

export function updateMilestone(deps: Deps, actor: Actor, id: string, input: UpdateMilestoneInput) {
  return deps.db.tx(async (tx) => {
    const milestone = await visibleMilestone(tx.q, actor, id)
    const board = await visibleBoard(tx.q, actor, milestone.board_id)
    const set: Partial<MilestonesTable> = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
    if (input.due_date !== undefined) set.due_date = normalizeDate(input.due_date) ?? null
    await updateMilestoneRow(tx.q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    const row = (await getMilestone(tx.q, id))!
    await emitEvent(deps, tx, { name: 'milestone.updated', boardId: board.id, data: milestoneEventData(row, board), actor })
    return (await milestoneViews(tx.q, [row]))[0]
  })
}

/** Cards taken off a milestone per transaction when it is deleted. */
const CLEAR_CHUNK = 100

export async function deleteMilestone(deps: Deps, actor: Actor, id: string): Promise<void> {
  await deps.db.tx(({ q }) => visibleMilestone(q, actor, id))
  // Each chunk checks again that the caller may still see the milestone, so losing access stops it.
  await inChunks(deps.db, CLEAR_CHUNK, async (tx, size) => {
    await visibleMilestone(tx.q, actor, id)
    return clearMilestoneOfCards(deps, tx, actor, id, size)
  })
  await deps.db.tx(async (tx) => {
    const milestone = await visibleMilestone(tx.q, actor, id)
    const board = await visibleBoard(tx.q, actor, milestone.board_id)
    while ((await clearMilestoneOfCards(deps, tx, actor, id, CLEAR_CHUNK)) === CLEAR_CHUNK);
    if (!(await deleteMilestoneRow(tx.q, id))) throw notFound('milestone')
    await emitEvent(deps, tx, { name: 'milestone.deleted', boardId: board.id, data: milestoneEventData(milestone, board), actor })
  })
}
