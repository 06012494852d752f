// Saved filters in API shape (their creators loaded once for a page), and the `data` of their events.
import type { Q } from '../../db/database.js'
import type { SavedFiltersTable } from '../../db/types.js'
import type { EventData } from '../../events/fields.js'
import { userRefsOf } from '../users/present.js'
import type { SavedFilterView } from './schema.js'

export async function savedFilterViews(q: Q, rows: readonly SavedFiltersTable[]): Promise<SavedFilterView[]> {
  const ref = await userRefsOf(
    q,
    rows.map((r) => r.created_by),
  )
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    resource: r.resource as SavedFilterView['resource'],
    filter: r.filter,
    sort: r.sort,
    expand: r.expand,
    board: r.board_id,
    shared: r.shared === 1,
    created_by: ref(r.created_by),
    created: r.created_at,
    updated: r.updated_at,
  }))
}

/** The `data` of a saved filter's events (without `actor`, which emitEvent adds). */
export const savedFilterEventData = (f: SavedFilterView, board: { id: string; name: string } | null): EventData<'saved_filter.created'> => ({
  id: f.id,
  name: f.name,
  resource: f.resource,
  filter: f.filter,
  sort: f.sort,
  expand: f.expand,
  board: board && { id: board.id, name: board.name },
  shared: f.shared,
  created_by: f.created_by,
})
