// Billing rates in API shape, with the names of their users and creators in one query for a page.
import type { Q } from '../../db/database.js'
import type { UserBillingRatesTable } from '../../db/types.js'
import { userRefsOf } from '../users/present.js'
import type { UserBillingRateView } from './schema.js'

export async function rateViews(q: Q, rows: readonly UserBillingRatesTable[]): Promise<UserBillingRateView[]> {
  const ref = await userRefsOf(
    q,
    rows.flatMap((r) => [r.user_id, r.created_by]),
  )
  return rows.map((r) => ({
    id: r.id,
    user: ref(r.user_id),
    hourly_rate: r.hourly_rate,
    currency: r.currency,
    starts_on: r.starts_on,
    created_by: ref(r.created_by),
    created: r.created_at,
    updated: r.updated_at,
  }))
}
