// Signing secrets in API shape: never the value; creators from one query per page.
import type { Q } from '../../db/database.js'
import type { SigningSecretsTable } from '../../db/types.js'
import { creatorsOf } from '../users/present.js'
import type { SigningSecretView } from './schema.js'

export async function signingSecretViews(q: Q, rows: readonly SigningSecretsTable[]): Promise<SigningSecretView[]> {
  const creator = await creatorsOf(q, rows)
  return rows.map((r) => ({ id: r.id, name: r.name, created_by: creator(r.created_by), created_at: r.created_at, updated_at: r.updated_at }))
}
