// Bulk card operations and the workspace export. Each card changes in its own savepoint, so one failure never undoes
// or blocks the others; the cards go a chunk per transaction, so other requests get the database in between.
import { type Actor, isAdmin } from '../../access/roles.js'
import { nextTurn, type Tx } from '../../db/database.js'
import type { Deps } from '../../deps.js'
import { forbidden, HttpError } from '../../errors.js'
import type { CardFields } from '../cards/schema.js'
import { cardToChange, moveCardIn, updateCardIn } from '../cards/service.js'
import { loadCardLinks } from '../cards/published.js'
import type { BulkResult } from './schema.js'
import { exportRows } from './store.js'

const CHUNK = 50

/** Runs `change` on each id (repeats dropped) in its own savepoint, a chunk per transaction; a refusal fails that id only. */
export async function forEachId(deps: Deps, ids: string[], change: (tx: Tx, id: string) => Promise<unknown>): Promise<BulkResult> {
  const result: BulkResult = { updated: 0, failed: [] }
  const unique = [...new Set(ids)]
  for (let i = 0; i < unique.length; i += CHUNK) {
    if (i > 0) await nextTurn()
    // Counted per transaction and added up once it has committed: on PostgreSQL a transaction that lost a race runs again.
    const chunk = await deps.db.tx(async (tx) => {
      const counted: BulkResult = { updated: 0, failed: [] }
      for (const id of unique.slice(i, i + CHUNK)) {
        try {
          await tx.savepoint((sp) => change(sp, id))
          counted.updated++
        } catch (err) {
          if (!(err instanceof HttpError)) throw err
          counted.failed.push({ id, error: { code: err.code, message: err.message } })
        }
      }
      return counted
    })
    result.updated += chunk.updated
    result.failed.push(...chunk.failed)
  }
  return result
}

export const bulkUpdate = (deps: Deps, actor: Actor, ids: string[], set: CardFields) => forEachId(deps, ids, (tx, id) => updateCardIn(deps, tx, actor, id, set))

export const bulkMove = (deps: Deps, actor: Actor, ids: string[], to: { list: string; board?: string }) =>
  forEachId(deps, ids, (tx, id) => moveCardIn(deps, tx, actor, id, to))

/** Adds and removes members of a many-valued field (assignees or tags) on each card, keeping the others. */
export function bulkManage(deps: Deps, actor: Actor, ids: string[], field: 'assignees' | 'tags', add: string[], remove: string[]): Promise<BulkResult> {
  return forEachId(deps, ids, async (tx, id) => {
    await cardToChange(tx.q, actor, id)
    const links = (await loadCardLinks(tx.q, [id]))[field].get(id) ?? []
    const next = [...new Set([...links, ...add])].filter((x) => !remove.includes(x))
    return updateCardIn(deps, tx, actor, id, { [field]: next })
  })
}

export async function exportWorkspace(deps: Deps, actor: Actor) {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins can export the workspace.')
  return { exported_at: new Date(deps.clock.now()).toISOString(), ...(await exportRows(deps.db)) }
}
