// Milestone queries; cards name theirs in cards.milestone_id.
import { visibleBoardIds, type Viewer } from '../../access/visibility.js'
import type { Q } from '../../db/database.js'
import type { MilestonesTable } from '../../db/types.js'

export const getMilestone = (q: Q, id: string) => q.selectFrom('milestones').selectAll().where('id', '=', id).executeTakeFirst()
export const insertMilestone = (q: Q, row: MilestonesTable) => q.insertInto('milestones').values(row).execute()
export const updateMilestoneRow = (q: Q, id: string, set: Partial<MilestonesTable>) => q.updateTable('milestones').set(set).where('id', '=', id).execute()
export const deleteMilestoneRow = async (q: Q, id: string): Promise<boolean> =>
  Number((await q.deleteFrom('milestones').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

/** Completed and all cards (not in the trash) of each milestone, in one query. */
export async function progressOfMilestones(q: Q, ids: readonly string[]): Promise<Map<string, { done: number; total: number }>> {
  if (ids.length === 0) return new Map()
  const rows = await q
    .selectFrom('cards')
    .select((eb) => ['milestone_id', eb.fn.countAll<number>().as('total'), eb.fn.sum<number>('completed').as('done')])
    .where('milestone_id', 'in', [...new Set(ids)])
    .where('trashed', '=', 0)
    .groupBy('milestone_id')
    .execute()
  return new Map(rows.map((r) => [r.milestone_id!, { done: Number(r.done ?? 0), total: Number(r.total) }]))
}

/** Base query of the list route: the milestones of the boards a user sees, optionally of one board. */
export function visibleMilestonesQuery(q: Q, viewer: Viewer, boardId?: string) {
  const query = q.selectFrom('milestones').where('milestones.board_id', 'in', visibleBoardIds(q, viewer))
  return boardId ? query.where('milestones.board_id', '=', boardId) : query
}
