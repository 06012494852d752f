// Milestones in API shape (their progress counted for a whole page at once), and the `data` of their events.
import type { Q } from '../../db/database.js'
import type { MilestonesTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import type { MilestoneView } from './schema.js'
import { progressOfMilestones } from './store.js'

export const milestoneView = (m: MilestonesTable, progress = { done: 0, total: 0 }): MilestoneView => ({
  id: m.id,
  board: m.board_id,
  name: m.name,
  description: m.description,
  due_date: m.due_date,
  state: m.state,
  progress,
  created: m.created_at,
  updated: m.updated_at,
})

export async function milestoneViews(q: Q, rows: readonly MilestonesTable[]): Promise<MilestoneView[]> {
  const progress = await progressOfMilestones(
    q,
    rows.map((r) => r.id),
  )
  return rows.map((r) => milestoneView(r, progress.get(r.id)))
}

export const milestoneEventData = (m: MilestonesTable, board: { id: string; name: string }): EventData<'milestone.created'> => ({
  id: m.id,
  name: m.name,
  state: m.state,
  due_date: m.due_date,
  board: { id: board.id, name: board.name },
})
