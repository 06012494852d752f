// Incoming endpoints in API shape: the URL, never the credentials; boards and creators in one query each per page.
import type { Q } from '../../db/database.js'
import type { IncomingEndpointsTable } from '../../db/types.js'
import { creatorsOf } from '../users/present.js'
import { IncomingWebhookSchema, type IncomingWebhookView } from './schema.js'
import { boardsOfIncoming } from './store.js'
import { fromJsonColumn } from '../../db/json.js'

export async function incomingViews(q: Q, baseUrl: string, rows: readonly IncomingEndpointsTable[]): Promise<IncomingWebhookView[]> {
  const boards = await boardsOfIncoming(
    q,
    rows.map((r) => r.id),
  )
  const creator = await creatorsOf(q, rows)
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    url: `${baseUrl}/v1/hooks/${r.path}`,
    auth: r.auth_type === 'header' && r.auth_header_name ? { type: r.auth_type, header_name: r.auth_header_name } : { type: r.auth_type },
    methods: fromJsonColumn(IncomingWebhookSchema.shape.methods, r.methods),
    boards: boards.get(r.id) ?? [],
    all_boards: r.all_boards === 1,
    accept_files: r.accept_files === 1,
    max_files: r.max_files,
    paused: r.paused === 1,
    created_by: creator(r.created_by),
    created: r.created_at,
    updated: r.updated_at,
  }))
}
