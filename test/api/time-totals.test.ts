// Billing rates through HTTP (who manages and sees them, their rules) and the time totals of GET /v1/time-entries with
// group_by: per card, user, day and ISO week, with a filter, billable and not, costs at the rate in force on each day
// (two rates over time, two currencies), shown to owners and admins only, running timers left out.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp, type TestApp } from '../helpers/app.js'
import { runScenarios } from '../helpers/scenarios.js'

async function post(t: TestApp, token: string, path: string, body?: unknown) {
  const r = await t.req('POST', path, { token, body })
  assert.ok(r.status === 200 || r.status === 201, `${path}: ${r.status} ${r.text}`)
  return r.body
}

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  const rate = async (user: string, hourly_rate: number, currency: string, starts_on: string) =>
    (await post(t, tokens.owner.write, '/v1/user-billing-rates', { user, hourly_rate, currency, starts_on })).user_billing_rate
  const first = await rate(s.member.id, 60, 'EUR', '2026-11-01')
  const second = await rate(s.member.id, 88.88, 'EUR', '2026-11-10')
  const admins = await rate(s.admin.id, 100, 'USD', '2026-01-01')
  const cardA = (await post(t, tokens.member.write, '/v1/cards', { board: s.board.id, title: 'A' })).card
  const cardB = (await post(t, tokens.member.write, '/v1/cards', { board: s.board.id, title: 'B' })).card
  const entry = (token: string, card: { id: string }, started_at: string, duration_seconds: number, billable = true) =>
    post(t, token, '/v1/time-entries', { card: card.id, started_at, duration_seconds, billable })
  await entry(tokens.member.write, cardA, '2026-11-02T09:00:00Z', 3600) // 60 EUR
  await entry(tokens.member.write, cardA, '2026-11-02T20:00:00Z', 1800, false)
  await entry(tokens.member.write, cardB, '2026-11-10T00:00:00Z', 1200) // the day the 88.88 EUR rate starts: 29.6266…
  await entry(tokens.member.write, cardB, '2026-10-31T23:30:00Z', 3600) // before the member's first rate: no cost
  await entry(tokens.admin.write, cardA, '2026-11-03T08:00:00Z', 5400) // 150 USD
  // A running timer is left out of the totals.
  await post(t, tokens.member.write, '/v1/time-entries/timer/start', { card: cardA.id })
  t.clock.advance(3_600_000)
  return { ...s, first, second, admins, cardA, cardB }
}
type C = Awaited<ReturnType<typeof fixture>>

const totals = (groupBy: string, filter?: string) => `/v1/time-entries?group_by=${groupBy}${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`

runScenarios<C>('time totals', fixture, [
  {
    name: 'per card, by most time: mixed currencies stay apart',
    method: 'GET',
    path: totals('card'),
    token: (c) => c.tokens.owner.read,
    status: 200,
    expect: (c: C) => ({
      items: [
        { key: c.cardA.id, seconds: 10800, billable_seconds: 9000, cost: { EUR: 60, USD: 150 } },
        { key: c.cardB.id, seconds: 4800, billable_seconds: 4800, cost: { EUR: 29.63 } },
      ],
    }),
  },
  {
    name: 'per user: each priced at the rate in force on each day',
    method: 'GET',
    path: totals('user'),
    token: (c) => c.tokens.admin.read,
    status: 200,
    expect: (c: C) => ({
      items: [
        { key: c.member.id, seconds: 10200, billable_seconds: 8400, cost: { EUR: 89.63 } },
        { key: c.admin.id, seconds: 5400, billable_seconds: 5400, cost: { USD: 150 } },
      ],
    }),
  },
  {
    name: 'per UTC day, newest first; a day without a rate costs {}',
    method: 'GET',
    path: totals('day'),
    token: (c) => c.tokens.owner.read,
    status: 200,
    expect: {
      items: [
        { key: '2026-11-10', seconds: 1200, billable_seconds: 1200, cost: { EUR: 29.63 } },
        { key: '2026-11-03', seconds: 5400, billable_seconds: 5400, cost: { USD: 150 } },
        { key: '2026-11-02', seconds: 5400, billable_seconds: 3600, cost: { EUR: 60 } },
        { key: '2026-10-31', seconds: 3600, billable_seconds: 3600, cost: {} },
      ],
    },
  },
  {
    name: 'per ISO week, keyed by its Monday',
    method: 'GET',
    path: totals('week'),
    token: (c) => c.tokens.owner.read,
    status: 200,
    expect: {
      items: [
        { key: '2026-11-09', seconds: 1200, billable_seconds: 1200, cost: { EUR: 29.63 } },
        { key: '2026-11-02', seconds: 10800, billable_seconds: 9000, cost: { EUR: 60, USD: 150 } },
        { key: '2026-10-26', seconds: 3600, billable_seconds: 3600, cost: {} },
      ],
    },
  },
  {
    name: 'with a filter: one user, from a day on',
    method: 'GET',
    path: (c) => totals('day', `user="${c.member.id}" && started_at>="2026-11-01"`),
    token: (c) => c.tokens.owner.read,
    status: 200,
    expect: {
      items: [
        { key: '2026-11-10', seconds: 1200, cost: { EUR: 29.63 } },
        { key: '2026-11-02', seconds: 5400, billable_seconds: 3600, cost: { EUR: 60 } },
      ],
    },
  },
  {
    name: 'with a filter on billable time only, per card',
    method: 'GET',
    path: (c) => totals('card', `billable=true && card="${c.cardA.id}"`),
    token: (c) => c.tokens.owner.read,
    status: 200,
    expect: (c: C) => ({ items: [{ key: c.cardA.id, seconds: 9000, billable_seconds: 9000, cost: { EUR: 60, USD: 150 } }] }),
  },
  {
    name: 'a member sees the totals without costs',
    method: 'GET',
    path: totals('user'),
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({
      items: [
        { key: c.member.id, seconds: 10200, cost: {} },
        { key: c.admin.id, seconds: 5400, cost: {} },
      ],
    }),
  },
  {
    name: 'a member of another board sees no totals',
    method: 'GET',
    path: totals('card'),
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: { items: [] },
  },
  {
    name: 'an unknown group_by is a 400',
    method: 'GET',
    path: totals('month'),
    token: (c) => c.tokens.owner.read,
    status: 400,
  },
  {
    name: 'a bad filter with group_by is a 400',
    method: 'GET',
    path: totals('day', 'seconds>1'),
    token: (c) => c.tokens.owner.read,
    status: 400,
  },
])

test('a deleted rate leaves the previous one in force; a changed rate changes the cost', async () => {
  const c = await fixture()
  try {
    const cost = async () => (await c.t.req('GET', totals('card', `card="${c.cardB.id}"`), { token: c.tokens.owner.read })).body.items[0].cost
    assert.deepEqual(await cost(), { EUR: 29.63 })
    assert.equal((await c.t.req('DELETE', `/v1/user-billing-rates/${c.second.id}`, { token: c.tokens.admin.write })).status, 204)
    assert.deepEqual(await cost(), { EUR: 20 })
    const changed = await c.t.req('PATCH', `/v1/user-billing-rates/${c.first.id}`, { token: c.tokens.admin.write, body: { hourly_rate: 30, currency: 'GBP' } })
    assert.equal(changed.status, 200, changed.text)
    assert.deepEqual(await cost(), { GBP: 10 })
  } finally {
    await c.t.close()
  }
})

const rates = '/v1/user-billing-rates'
const rateBody = (over: Record<string, unknown>) => (c: C) => ({ user: c.member.id, hourly_rate: 75, currency: 'EUR', starts_on: '2026-12-01', ...over })

runScenarios<C>('billing rates', fixture, [
  {
    name: 'an owner sets a rate',
    method: 'POST',
    path: rates,
    token: (c) => c.tokens.owner.write,
    body: rateBody({}),
    status: 201,
    events: [],
    expect: (c: C) => ({
      user_billing_rate: { user: { id: c.member.id }, hourly_rate: 75, currency: 'EUR', starts_on: '2026-12-01', created_by: { id: c.owner.id } },
    }),
  },
  {
    name: 'a rate of 0 is fine',
    method: 'POST',
    path: rates,
    token: (c) => c.tokens.admin.write,
    body: rateBody({ hourly_rate: 0 }),
    status: 201,
  },
  {
    name: 'a member cannot set a rate, not even their own: 403',
    method: 'POST',
    path: rates,
    token: (c) => c.tokens.member.write,
    body: rateBody({}),
    status: 403,
  },
  {
    name: 'a read-only token cannot set a rate: 403',
    method: 'POST',
    path: rates,
    token: (c) => c.tokens.owner.read,
    body: rateBody({}),
    status: 403,
  },
  {
    name: 'a second rate of the user starting the same day is a 409',
    method: 'POST',
    path: rates,
    token: (c) => c.tokens.owner.write,
    body: rateBody({ starts_on: '2026-11-10', currency: 'USD' }),
    status: 409,
  },
  {
    name: 'the rate is not negative',
    method: 'POST',
    path: rates,
    token: (c) => c.tokens.owner.write,
    body: rateBody({ hourly_rate: -1 }),
    status: 422,
    field: 'hourly_rate',
  },
  {
    name: 'the currency is 3 capital letters',
    method: 'POST',
    path: rates,
    token: (c) => c.tokens.owner.write,
    body: rateBody({ currency: 'eur' }),
    status: 422,
    field: 'currency',
  },
  {
    name: 'starts_on is a day',
    method: 'POST',
    path: rates,
    token: (c) => c.tokens.owner.write,
    body: rateBody({ starts_on: '2026-12-01T00:00:00Z' }),
    status: 422,
    field: 'starts_on',
  },
  {
    name: 'the user exists',
    method: 'POST',
    path: rates,
    token: (c) => c.tokens.owner.write,
    body: rateBody({ user: 'nobody' }),
    status: 422,
    field: 'user',
  },
  {
    name: 'a member lists their own rates only, latest start first',
    method: 'GET',
    path: rates,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 2, items: [{ id: c.second.id, starts_on: '2026-11-10' }, { id: c.first.id }] }),
  },
  {
    name: "an admin lists everyone's, filtered by currency",
    method: 'GET',
    path: `${rates}?filter=${encodeURIComponent('currency="USD"')}`,
    token: (c) => c.tokens.admin.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.admins.id, user: { id: c.admin.id } }] }),
  },
  {
    name: 'a member reads their own rate',
    method: 'GET',
    path: (c) => `${rates}/${c.first.id}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: { user_billing_rate: { hourly_rate: 60, currency: 'EUR' } },
  },
  {
    name: "a member cannot read someone else's rate: 404",
    method: 'GET',
    path: (c) => `${rates}/${c.admins.id}`,
    token: (c) => c.tokens.member.read,
    status: 404,
  },
  {
    name: 'an admin changes a rate',
    method: 'PATCH',
    path: (c) => `${rates}/${c.first.id}`,
    token: (c) => c.tokens.admin.write,
    body: { hourly_rate: 65.5, starts_on: '2026-10-01' },
    status: 200,
    expect: { user_billing_rate: { hourly_rate: 65.5, starts_on: '2026-10-01', currency: 'EUR' } },
  },
  {
    name: 'a change onto the day of another rate of the user is a 409',
    method: 'PATCH',
    path: (c) => `${rates}/${c.first.id}`,
    token: (c) => c.tokens.admin.write,
    body: { starts_on: '2026-11-10' },
    status: 409,
  },
  {
    name: 'a member cannot change their own rate: 403',
    method: 'PATCH',
    path: (c) => `${rates}/${c.first.id}`,
    token: (c) => c.tokens.member.write,
    body: { hourly_rate: 1000 },
    status: 403,
  },
  {
    name: 'a member cannot delete their own rate: 403',
    method: 'DELETE',
    path: (c) => `${rates}/${c.first.id}`,
    token: (c) => c.tokens.member.write,
    status: 403,
  },
  {
    name: 'an owner deletes a rate',
    method: 'DELETE',
    path: (c) => `${rates}/${c.admins.id}`,
    token: (c) => c.tokens.owner.write,
    status: 204,
    after: async (c) => assert.equal((await c.t.req('GET', `${rates}/${c.admins.id}`, { token: c.tokens.owner.read })).status, 404),
  },
])
