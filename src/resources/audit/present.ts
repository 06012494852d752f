// Audit entries in API shape (the same shape the audit.entry event carries).
import type { AuditLogTable } from '../../db/types.js'
import { fromJsonColumn, JsonObject } from '../../db/json.js'
import type { AuditActor, AuditEntryView } from './schema.js'

export const auditView = (row: AuditLogTable): AuditEntryView => ({
  id: row.id,
  action: row.action,
  actor: { type: row.actor_type as AuditActor['type'], id: row.actor_id, name: row.actor_name },
  target: { type: row.target_type, id: row.target_id, name: row.target_name },
  board: row.board_id,
  details: fromJsonColumn(JsonObject, row.details),
  request_id: row.request_id,
  created: row.created_at,
})
