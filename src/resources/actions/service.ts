// Bulk card operations and the workspace export. A change of the cards' own columns (with their milestone, parent and
// custom fields), of their completion, of their status or of their list runs set-based (setBased: a statement for a
// chunk's cards, their events written together); any other change goes card by card, each in its own savepoint
// (forEachId). Either way one card's failure never undoes or blocks the others, and the cards go a chunk per
// transaction, so other requests get the database in between.
import { type Actor, isAdmin } from '../../access/roles.js'
import { nextTurn, type Tx } from '../../db/database.js'
import type { Deps } from '../../deps.js'
import { forbidden, HttpError } from '../../errors.js'
import type { CardFields } from '../cards/schema.js'
import { changeLinksIn, completeCardsIn, inPlaceOnly, moveCardsIn, setStatusIn, updateCardIn, updateCardsIn } from '../cards/service.js'
import { audit } from '../audit/record.js'
import type { BulkResult } from './schema.js'
import { exportRows } from './store.js'

/** Cards per transaction: one by one (forEachId), and set-based (setBased). */
const CHUNK = 50
const SET_CHUNK = 250

const failure = (id: string, err: HttpError) => ({ id, error: { code: err.code, message: err.message } })

/** Runs `change` on the ids (repeats dropped) a chunk per transaction, with a turn of the event loop between chunks. */
async function inChunksOf(deps: Deps, ids: string[], size: number, change: (tx: Tx, chunk: string[]) => Promise<BulkResult>): Promise<BulkResult> {
  const result: BulkResult = { updated: 0, failed: [] }
  const unique = [...new Set(ids)]
  for (let i = 0; i < unique.length; i += size) {
    if (i > 0) await nextTurn()
    // Counted per transaction and added up once it has committed: on PostgreSQL a transaction that lost a race runs again.
    const chunk = await deps.db.tx((tx) => change(tx, unique.slice(i, i + size)))
    result.updated += chunk.updated
    result.failed.push(...chunk.failed)
  }
  return result
}

/** Runs `change` on each id (repeats dropped) in its own savepoint, a chunk per transaction; a refusal fails that id only. */
export const forEachId = (deps: Deps, ids: string[], change: (tx: Tx, id: string) => Promise<unknown>): Promise<BulkResult> =>
  inChunksOf(deps, ids, CHUNK, async (tx, chunk) => {
    const counted: BulkResult = { updated: 0, failed: [] }
    for (const id of chunk) {
      try {
        await tx.savepoint((sp) => change(sp, id))
        counted.updated++
      } catch (err) {
        if (!(err instanceof HttpError)) throw err
        counted.failed.push(failure(id, err))
      }
    }
    return counted
  })

/** Runs a set-based `change` on the ids (repeats dropped) a chunk per transaction; the cards it refuses fail, in order. */
const setBased = (deps: Deps, ids: string[], change: (tx: Tx, chunk: string[]) => Promise<Map<string, HttpError>>): Promise<BulkResult> =>
  inChunksOf(deps, ids, SET_CHUNK, async (tx, chunk) => {
    const refused = await change(tx, chunk)
    return { updated: chunk.length - refused.size, failed: chunk.filter((id) => refused.has(id)).map((id) => failure(id, refused.get(id)!)) }
  })

/**
 * The same change on many cards: set-based when it changes only what stays on the card (its own columns, milestone,
 * parent, custom fields), only its completion, or only its status; else one card at a time.
 */
export function bulkUpdate(deps: Deps, actor: Actor, ids: string[], set: CardFields): Promise<BulkResult> {
  if (inPlaceOnly(set)) return setBased(deps, ids, (tx, chunk) => updateCardsIn(deps, tx, actor, chunk, set))
  const { completed, status, ...rest } = set
  const alone = Object.values(rest).every((v) => v === undefined)
  if (alone && status === undefined && completed !== undefined) return setBased(deps, ids, (tx, chunk) => completeCardsIn(deps, tx, actor, chunk, completed))
  if (alone && completed === undefined && status !== undefined) return setBased(deps, ids, (tx, chunk) => setStatusIn(deps, tx, actor, chunk, status))
  return forEachId(deps, ids, (tx, id) => updateCardIn(deps, tx, actor, id, set))
}

export const bulkMove = (deps: Deps, actor: Actor, ids: string[], to: { list: string; board?: string }) =>
  setBased(deps, ids, (tx, chunk) => moveCardsIn(deps, tx, actor, chunk, to))

/** Adds and removes members of a many-valued field (assignees or tags) on each card, keeping the others; set-based. */
export const bulkManage = (deps: Deps, actor: Actor, ids: string[], field: 'assignees' | 'tags', add: string[], remove: string[]): Promise<BulkResult> =>
  setBased(deps, ids, (tx, chunk) => changeLinksIn(deps, tx, actor, chunk, field, add, remove))

export async function exportWorkspace(deps: Deps, actor: Actor) {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins can export the workspace.')
  const rows = await exportRows(deps.db)
  const records = Object.values(rows).reduce((n, r) => n + r.length, 0)
  await deps.db.tx((tx) => audit(deps, tx, actor, 'workspace.exported', { id: null, name: null }, { details: { via: 'api', records } }))
  return { exported_at: new Date(deps.clock.now()).toISOString(), ...rows }
}
