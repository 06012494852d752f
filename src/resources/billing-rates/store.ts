// Billing rate queries; a user has at most one rate starting on a given day.
import type { Q } from '../../db/database.js'
import type { UserBillingRatesTable } from '../../db/types.js'

export const getRate = (q: Q, id: string) => q.selectFrom('user_billing_rates').selectAll().where('id', '=', id).executeTakeFirst()
export const getRateStarting = (q: Q, userId: string, startsOn: string) =>
  q.selectFrom('user_billing_rates').selectAll().where('user_id', '=', userId).where('starts_on', '=', startsOn).executeTakeFirst()
export const insertRate = (q: Q, row: UserBillingRatesTable) => q.insertInto('user_billing_rates').values(row).execute()
export const updateRateRow = (q: Q, id: string, set: Partial<UserBillingRatesTable>) =>
  q.updateTable('user_billing_rates').set(set).where('id', '=', id).execute()
export const deleteRateRow = (q: Q, id: string) => q.deleteFrom('user_billing_rates').where('id', '=', id).execute()

/** Every rate of these users, each user's by the day it starts. */
export const ratesOfUsers = (q: Q, userIds: readonly string[]): Promise<UserBillingRatesTable[]> =>
  userIds.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('user_billing_rates')
        .selectAll()
        .where('user_id', 'in', [...new Set(userIds)])
        .orderBy('user_id')
        .orderBy('starts_on')
        .execute()

/** Base query of the rate list: one user's rates, or every rate (`userId` undefined). */
export function ratesQuery(q: Q, userId: string | undefined) {
  const query = q.selectFrom('user_billing_rates')
  return userId === undefined ? query : query.where('user_billing_rates.user_id', '=', userId)
}
