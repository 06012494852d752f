// The audit log family: /v1/audit, the `audit.entry` event, and `audit` (record.ts), which audited actions call.
import type { ResourceModule } from '../module.js'
import { AUDIT_EVENTS } from './events.js'
import { AUDIT_FILTER } from './query.js'
import { auditRoutes } from './routes.js'

/**
 * A workspace export carries the log: it is the workspace's history of who did what, which an instance moved by
 * export and import should keep (an entry holds names and ids, never a secret); the import adds its own entry after it.
 * Append-only for an import too: entries a command already wrote into the new database (its export, a token made for
 * the import) stay, and do not make it count as filled.
 */
export const audit: ResourceModule = {
  name: 'audit',
  routes: auditRoutes,
  filters: { audit: AUDIT_FILTER },
  events: AUDIT_EVENTS,
  exports: [{ table: 'audit_log', appendOnly: true }],
}
