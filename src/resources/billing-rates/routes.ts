// /v1/user-billing-rates: hourly rates of users, which price billable time in the time totals.
import { defineRoute } from '../../http/route.js'
import { envelope, idParam } from '../../http/schemas.js'
import { listQuery, pageSchema } from '../../query/list-page.js'
import { BILLING_RATE_LIST } from './query.js'
import { CreateBillingRateBody, UpdateBillingRateBody, UserBillingRateSchema } from './schema.js'
import { createRate, deleteRate, getRateFor, listRates, updateRate } from './service.js'

const Rate = envelope('user_billing_rate', UserBillingRateSchema)

export const billingRateRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/user-billing-rates',
    operationId: 'listUserBillingRates',
    tag: 'Billing rates',
    access: 'read',
    summary: 'List billing rates: owners and admins see every rate, anyone else their own. Latest start first',
    query: listQuery(BILLING_RATE_LIST),
    responses: { 200: { description: 'A page of billing rates', schema: pageSchema(UserBillingRateSchema, 'UserBillingRatePage') } },
    handler: async ({ deps, actor, query }) => ({ status: 200, body: await listRates(deps, actor, query) }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/user-billing-rates',
    operationId: 'createUserBillingRate',
    tag: 'Billing rates',
    access: 'write',
    summary: "Set a user's hourly rate from a day on (owners and admins)",
    description:
      "A rate is in force from `starts_on` until the user's next rate starts; time totals price billable time with the rate in force on each entry's day (UTC). 409 when the user already has a rate starting that day.",
    body: CreateBillingRateBody,
    errors: [409],
    responses: { 201: { description: 'The billing rate', schema: Rate } },
    handler: async ({ deps, actor, body }) => ({ status: 201, body: { user_billing_rate: await createRate(deps, actor, body) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/user-billing-rates/{id}',
    operationId: 'getUserBillingRate',
    tag: 'Billing rates',
    access: 'read',
    summary: 'Get a billing rate (your own; owners and admins any)',
    params: idParam,
    responses: { 200: { description: 'The billing rate', schema: Rate } },
    handler: async ({ deps, actor, params }) => ({ status: 200, body: { user_billing_rate: await getRateFor(deps, actor, params.id) } }),
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/user-billing-rates/{id}',
    operationId: 'updateUserBillingRate',
    tag: 'Billing rates',
    access: 'write',
    summary: 'Change a billing rate (owners and admins); 409 when the user already has another rate starting on the new day',
    params: idParam,
    body: UpdateBillingRateBody,
    errors: [409],
    responses: { 200: { description: 'The billing rate', schema: Rate } },
    handler: async ({ deps, actor, params, body }) => ({ status: 200, body: { user_billing_rate: await updateRate(deps, actor, params.id, body) } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/user-billing-rates/{id}',
    operationId: 'deleteUserBillingRate',
    tag: 'Billing rates',
    access: 'write',
    summary: 'Delete a billing rate (owners and admins); the previous rate of the user stays in force in its place',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ deps, actor, params }) => {
      await deleteRate(deps, actor, params.id)
      return { status: 204 }
    },
  }),
]
