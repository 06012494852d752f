// Billing rates: owners and admins manage everyone's; a member reads their own. Time totals price billable time with
// the rate in force on each entry's day (`ratesInForce`).
import { sightLimitedTo } from '../../access/records.js'
import { type Actor, creatorId, isAdmin } from '../../access/roles.js'
import { seesUsersRecord } from '../../access/visibility.js'
import { isoAt } from '../../clock.js'
import type { Q } from '../../db/database.js'
import type { UserBillingRatesTable } from '../../db/types.js'
import type { Deps } from '../../deps.js'
import { conflict, forbidden, invalidField, notFound } from '../../errors.js'
import { newId } from '../../ids.js'
import { listPage, type ListParams } from '../../query/list-page.js'
import { getUser } from '../users/published.js'
import { rateViews } from './present.js'
import { BILLING_RATE_LIST } from './query.js'
import type { CreateBillingRateInput, UpdateBillingRateInput, UserBillingRateView } from './schema.js'
import { deleteRateRow, getRate, getRateStarting, insertRate, ratesOfUsers, updateRateRow, ratesQuery } from './store.js'

/** A rate the caller sees (their own; owners and admins any); 404 otherwise. */
async function visibleRate(q: Q, actor: Actor, id: string): Promise<UserBillingRatesTable> {
  const row = await getRate(q, id)
  if (!row || !seesUsersRecord(actor.user, row.user_id)) throw notFound('billing rate')
  return row
}

function mustManage(actor: Actor): void {
  if (!isAdmin(actor)) throw forbidden('Only owners and admins manage billing rates.')
}

async function refuseSameDay(q: Q, userId: string, startsOn: string, id?: string): Promise<void> {
  const clash = await getRateStarting(q, userId, startsOn)
  if (clash && clash.id !== id) throw conflict(`The user already has a rate starting on ${startsOn}.`)
}

const viewOf = async (q: Q, id: string): Promise<UserBillingRateView> => (await rateViews(q, [(await getRate(q, id))!]))[0]

export function listRates(deps: Deps, actor: Actor, params: ListParams) {
  const { q } = deps.db
  return listPage(deps.db, ratesQuery(q, sightLimitedTo(actor.user)), BILLING_RATE_LIST, params, (rows: UserBillingRatesTable[]) => rateViews(q, rows))
}

export const getRateFor = async (deps: Deps, actor: Actor, id: string) => (await rateViews(deps.db.q, [await visibleRate(deps.db.q, actor, id)]))[0]

export const createRate = (deps: Deps, actor: Actor, input: CreateBillingRateInput): Promise<UserBillingRateView> =>
  deps.db.tx(async ({ q }) => {
    mustManage(actor)
    if (!(await getUser(q, input.user))) throw invalidField('user', 'No such user.')
    await refuseSameDay(q, input.user, input.starts_on)
    const at = isoAt(deps.clock.now())
    const id = newId()
    const { user, hourly_rate, currency, starts_on } = input
    await insertRate(q, { id, user_id: user, hourly_rate, currency, starts_on, created_by: creatorId(actor), created_at: at, updated_at: at })
    return viewOf(q, id)
  })

export const updateRate = (deps: Deps, actor: Actor, id: string, input: UpdateBillingRateInput): Promise<UserBillingRateView> =>
  deps.db.tx(async ({ q }) => {
    const row = await visibleRate(q, actor, id)
    mustManage(actor)
    if (input.starts_on !== undefined) await refuseSameDay(q, row.user_id, input.starts_on, id)
    const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
    await updateRateRow(q, id, { ...set, updated_at: isoAt(deps.clock.now()) })
    return viewOf(q, id)
  })

export const deleteRate = (deps: Deps, actor: Actor, id: string): Promise<void> =>
  deps.db.tx(async ({ q }) => {
    await visibleRate(q, actor, id)
    mustManage(actor)
    await deleteRateRow(q, id)
  })

export interface Rate {
  hourly_rate: number
  currency: string
}

/** The rates of these users as a lookup: the rate in force for a user on a day (`YYYY-MM-DD`), if any. */
export async function ratesInForce(q: Q, userIds: readonly string[]): Promise<(userId: string, day: string) => Rate | undefined> {
  const byUser = new Map<string, UserBillingRatesTable[]>()
  for (const r of await ratesOfUsers(q, userIds)) (byUser.get(r.user_id) ?? byUser.set(r.user_id, []).get(r.user_id)!).push(r)
  // Each user's rates are by starts_on: the last one that started on or before the day is in force.
  return (userId, day) =>
    byUser
      .get(userId)
      ?.filter((r) => r.starts_on <= day)
      .at(-1)
}
