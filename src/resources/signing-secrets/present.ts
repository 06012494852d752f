// Signing secrets in API shape: never the value; creators from one query per page.
import type { Q } from '../../db/database.js'
import type { SigningSecretsTable } from '../../db/types.js'
import { userRefOf } from '../users/present.js'
import { getUsers } from '../users/store.js'
import type { SigningSecretView } from './schema.js'

export async function signingSecretViews(q: Q, rows: readonly SigningSecretsTable[]): Promise<SigningSecretView[]> {
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
    created_by: r.created_by ? userRefOf(users, r.created_by) : null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  }))
}
