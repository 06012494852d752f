// /v1/audit: the audit log, read by owners and admins; nothing writes to it through the API.
import { z } from 'zod'
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BoardSchema } from '../boards/schema.js'
import { AUDIT_LIST } from './query.js'
import { AuditEntrySchema } from './schema.js'
import { getAuditEntryFor, listAudit } from './service.js'

export const auditRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/audit',
    operationId: 'listAuditEntries',
    tag: 'Audit log',
    access: 'read',
    summary: 'The audit log, newest first (owners and admins)',
    description:
      'Who did what to the workspace: tokens created and revoked, users created and their roles changed, agents created and changed, board members ' +
      'added, removed and their roles changed, boards trashed, restored and deleted, outgoing webhooks, incoming endpoints, automations and signing ' +
      'secrets created, changed and deleted, webhooks paused by taskd and resumed, exports, imports and restores (also those run with the `taskd` ' +
      'command, with actor type `cli`). An entry never holds a secret. Entries are append-only and kept `TASKD_AUDIT_RETENTION_DAYS` (365 by ' +
      'default); each is also the event `audit.entry`. Filter on `action`, `actor`, `actor_type`, `target`, `target_type`, `board`, `request_id` ' +
      'and `created`, e.g. `action ~ "token." && created >= "2026-11-01"`. Members get 403.',
    query: listQuery(AUDIT_LIST),
    errors: [403],
    responses: {
      200: {
        description: 'A page of audit entries',
        schema: pageSchema(
          AuditEntrySchema.extend({
            expand: z.strictObject({ board: BoardSchema.optional().meta({ description: 'Absent when the entry has no board or it is gone.' }) }).optional(),
          }),
          'AuditEntryPage',
        ),
      },
    },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listAudit(deps, actor, query) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/audit/{id}',
    operationId: 'getAuditEntry',
    tag: 'Audit log',
    access: 'read',
    summary: 'Get an audit entry (owners and admins)',
    params: idParam,
    errors: [403],
    responses: { 200: { description: 'The entry', schema: envelope('audit_entry', AuditEntrySchema) } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { audit_entry: await getAuditEntryFor(deps, actor, params.id) } }),
  }),
]
