// Billing rates in API shape, with the names of their users and creators in one query for a page.
import type { Q } from '../../db/database.js'
import type { UserBillingRatesTable } from '../../db/types.js'
import { userRefOf } from '../users/present.js'
import { getUsers } from '../users/store.js'
import type { UserBillingRateView } from './schema.js'

export async function rateViews(q: Q, rows: readonly UserBillingRatesTable[]): Promise<UserBillingRateView[]> {
  const users = new Map(
    (
      await getUsers(
        q,
        rows.flatMap((r) => [r.user_id, ...(r.created_by ? [r.created_by] : [])]),
      )
    ).map((u) => [u.id, u]),
  )
  return rows.map((r) => ({
    id: r.id,
    user: userRefOf(users, r.user_id),
    hourly_rate: r.hourly_rate,
    currency: r.currency,
    starts_on: r.starts_on,
    created_by: r.created_by ? userRefOf(users, r.created_by) : null,
    created: r.created_at,
    updated: r.updated_at,
  }))
}
