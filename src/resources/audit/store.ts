// Audit log queries: append an entry, read the log, prune what is past the retention. No route updates or deletes one.
import type { Q } from '../../db/database.js'
import { rowInsert } from '../../db/sql.js'
import type { AuditLogTable } from '../../db/types.js'

export const insertAuditEntry = rowInsert('audit_log')

/** The whole log: only owners and admins read it, and they read all of it. */
export const auditQuery = (q: Q) => q.selectFrom('audit_log')

export const getAuditEntry = (q: Q, id: string): Promise<AuditLogTable | undefined> =>
  q.selectFrom('audit_log').selectAll().where('id', '=', id).executeTakeFirst()

/** Deletes up to `limit` of the oldest entries made before `beforeIso`; returns how many went. */
export async function pruneAuditEntries(q: Q, beforeIso: string, limit: number): Promise<number> {
  const oldest = q.selectFrom('audit_log').select('id').where('created_at', '<', beforeIso).orderBy('created_at').orderBy('id').limit(limit)
  const result = await q.deleteFrom('audit_log').where('id', 'in', oldest).executeTakeFirst()
  return Number(result.numDeletedRows)
}
