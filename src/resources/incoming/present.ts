// Incoming endpoints in API shape: the URL, never the credentials; boards and creators in one query each per page.
import type { Q } from '../../db/database.js'
import type { IncomingEndpointsTable } from '../../db/types.js'
import { userRefOf } from '../users/present.js'
import { getUsers } from '../users/store.js'
import type { IncomingWebhookView } from './schema.js'
import { boardsOfIncoming } from './store.js'

export async function incomingViews(q: Q, baseUrl: string, rows: readonly IncomingEndpointsTable[]): Promise<IncomingWebhookView[]> {
  const boards = await boardsOfIncoming(
    q,
    rows.map((r) => r.id),
  )
  const users = new Map(
    (
      await getUsers(
        q,
        rows.flatMap((r) => (r.created_by ? [r.created_by] : [])),
      )
    ).map((u) => [u.id, u]),
  )
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    url: `${baseUrl}/v1/hooks/${r.path}`,
    auth: r.auth_type === 'header' && r.auth_header_name ? { type: r.auth_type, header_name: r.auth_header_name } : { type: r.auth_type },
    methods: JSON.parse(r.methods) as IncomingWebhookView['methods'],
    boards: boards.get(r.id) ?? [],
    all_boards: r.all_boards === 1,
    accept_files: r.accept_files === 1,
    max_files: r.max_files,
    paused: r.paused === 1,
    created_by: r.created_by ? userRefOf(users, r.created_by) : null,
    created: r.created_at,
    updated: r.updated_at,
  }))
}
