// The audit log as owners and admins read it, and its pruning past the retention. Entries are written by record.ts,
// in the transactions of the actions; nothing updates or deletes one but the retention.
import { type Actor, isAdmin } from '../../access/roles.js'
import { DAY_MS, isoAt } from '../../clock.js'
import type { AuditLogTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { forbidden, notFound } from '../../errors.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { expandBoard } from '../boards/present.js'
import { auditView } from './present.js'
import { AUDIT_LIST } from './query.js'
import type { AuditEntryView } from './schema.js'
import { auditQuery, getAuditEntry, pruneAuditEntries } from './store.js'

function assertReader(actor: Actor): void {
  if (!isAdmin(actor)) throw forbidden('Only workspace owners and admins read the audit log.')
}

/** The log, newest first unless sorted otherwise; `expand=board` shows the boards that still exist. */
export function listAudit(deps: Deps, actor: Actor, params: ListParams) {
  assertReader(actor)
  const { q } = deps.db
  return listPage(deps.db, auditQuery(q), AUDIT_LIST, params, async (rows: AuditLogTable[], expand) => {
    const views = rows.map(auditView)
    if (!expand.has('board')) return views
    // expandBoard looks boards up by id; an entry of no board expands nothing.
    const expanded = await expandBoard(
      q,
      views.map((v) => ({ ...v, board: v.board ?? '' })),
      expand,
    )
    return expanded.map((e, i) => ({ ...e, board: views[i].board }))
  })
}

export async function getAuditEntryFor(deps: Deps, actor: Actor, id: string): Promise<AuditEntryView> {
  assertReader(actor)
  const row = await getAuditEntry(deps.db.q, id)
  if (!row) throw notFound('audit entry')
  return auditView(row)
}

/** Entries deleted per transaction when the retention prunes. */
const PRUNE_CHUNK = 1000

/**
 * Deletes the entries older than TASKD_AUDIT_RETENTION_DAYS (the housekeeping runs it hourly), a chunk per
 * transaction; `stopping()` is asked between chunks. Returns how many went.
 */
export async function pruneAuditLog(deps: Deps, stopping: () => boolean = () => false): Promise<number> {
  const before = isoAt(deps.clock.now() - deps.config.auditRetentionDays * DAY_MS)
  let pruned = 0
  for (;;) {
    const n = await deps.db.tx(({ q }) => pruneAuditEntries(q, before, PRUNE_CHUNK))
    pruned += n
    if (n < PRUNE_CHUNK || stopping()) return pruned
  }
}
