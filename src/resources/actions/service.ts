// Bulk card operations and the workspace export. Each card changes in its own savepoint, so one failure never
// undoes or blocks the others.
import { type Actor, isAdmin } from '../../access/roles.js'
import type { Deps } from '../../deps.js'
import { forbidden, HttpError } from '../../errors.js'
import type { CardFields } from '../cards/schema.js'
import { moveCard, updateCard, visibleCard } from '../cards/service.js'
import { loadCardLinks } from '../cards/store.js'
import type { BulkResult } from './schema.js'
import { exportRows } from './store.js'

function forEachCard(deps: Deps, ids: string[], change: (id: string) => void): BulkResult {
  const result: BulkResult = { updated: 0, failed: [] }
  deps.sql.tx(() => {
    for (const id of new Set(ids)) {
      try {
        deps.sql.tx(() => change(id))
        result.updated++
      } catch (err) {
        if (!(err instanceof HttpError)) throw err
        result.failed.push({ id, error: { code: err.code, message: err.message } })
      }
    }
  })
  return result
}

export const bulkUpdate = (deps: Deps, actor: Actor, ids: string[], set: CardFields) => forEachCard(deps, ids, (id) => updateCard(deps, actor, id, set))

export const bulkMove = (deps: Deps, actor: Actor, ids: string[], to: { list: string; board?: string }) =>
  forEachCard(deps, ids, (id) => moveCard(deps, actor, id, to))

/** Adds and removes members of a many-valued field (assignees or tags) on each card, keeping the others. */
export function bulkManage(deps: Deps, actor: Actor, ids: string[], field: 'assignees' | 'tags', add: string[], remove: string[]): BulkResult {
  return forEachCard(deps, ids, (id) => {
    visibleCard(deps, actor, id)
    const links = loadCardLinks(deps.sql, [id])[field].get(id) ?? []
    const next = [...new Set([...links, ...add])].filter((x) => !remove.includes(x))
    updateCard(deps, actor, id, { [field]: next })
  })
}

export function exportWorkspace(deps: Deps, actor: Actor) {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins can export the workspace.')
  return { exported_at: new Date(deps.clock.now()).toISOString(), ...exportRows(deps.sql) }
}
