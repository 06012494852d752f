// Bulk card operations: each card changes in its own savepoint, so one failure never undoes or blocks the others.
import { HttpError } from '../http/errors.js'
import { loadCardLinks } from '../store/cards.js'
import { moveCard, updateCard, visibleCard, type CardFields } from './cards.js'
import type { Actor, Deps } from './context.js'

export interface BulkResult { updated: number; failed: { id: string; error: { code: string; message: string } }[] }

export function forEachCard(deps: Deps, ids: string[], change: (id: string) => void): BulkResult {
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

export const bulkUpdate = (deps: Deps, actor: Actor, ids: string[], set: CardFields) =>
  forEachCard(deps, ids, (id) => updateCard(deps, actor, id, set))

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
