// Signing secrets in API shape: never the value (nor the one before a rotation); creators from one query per page.
import type { Q } from '../../db/database.js'
import { rotationEnd } from '../../delivery/credentials.js'
import type { SigningSecretsTable } from '../../db/types.js'
import { creatorsOf } from '../users/present.js'
import type { SigningSecretView } from './schema.js'

/** `now` decides whether a rotation's overlap still lasts (the housekeeping pass forgets the old value later). */
export async function signingSecretViews(q: Q, rows: readonly SigningSecretsTable[], now: number): Promise<SigningSecretView[]> {
  const creator = await creatorsOf(q, rows)
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    created_by: creator(r.created_by),
    created_at: r.created_at,
    updated_at: r.updated_at,
    rotating_until: r.previous_value_enc === null ? null : rotationEnd(r.previous_until, now),
  }))
}
