// Timesheet approvals through HTTP: submitting a period (its rules and overlaps), who sees and reviews which, withdrawing,
// and the lock an approved period puts on its user's time entries (create, edit, delete, timer start: 409).
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
  const card = (await post(t, tokens.member.write, '/v1/cards', { board: s.board.id, title: 'Ship it' })).card
  const entry = async (token: string, started_at: string) =>
    (await post(t, token, '/v1/time-entries', { card: card.id, started_at, duration_seconds: 3600 })).time_entry
  const inside = await entry(tokens.member.write, '2026-11-02T09:00:00Z')
  const outside = await entry(tokens.member.write, '2026-11-20T09:00:00Z')
  const submitted = (
    await post(t, tokens.member.write, '/v1/timesheet-approvals', { period_start: '2026-11-01', period_end: '2026-11-15', note: 'First half' })
  ).timesheet_approval
  const admins = (await post(t, tokens.admin.write, '/v1/timesheet-approvals', { period_start: '2026-11-01', period_end: '2026-11-30' })).timesheet_approval
  return { ...s, card, entry, inside, outside, submitted, admins }
}
type C = Awaited<ReturnType<typeof fixture>>

const approve = (c: C) => `/v1/timesheet-approvals/${c.submitted.id}/approve`
const reject = (c: C) => `/v1/timesheet-approvals/${c.submitted.id}/reject`
const one = (c: C) => `/v1/timesheet-approvals/${c.submitted.id}`

runScenarios<C>('timesheet approvals', fixture, [
  {
    name: 'a member submits a period of their time',
    method: 'POST',
    path: '/v1/timesheet-approvals',
    token: (c) => c.tokens.member.write,
    body: { period_start: '2026-11-16', period_end: '2026-11-30' },
    status: 201,
    events: [],
    expect: (c: C) => ({
      timesheet_approval: {
        user: { id: c.member.id },
        period_start: '2026-11-16',
        period_end: '2026-11-30',
        status: 'submitted',
        note: '',
        comment: null,
        reviewed_by: null,
        reviewed_at: null,
        created: '2026-11-21T12:00:00.000Z',
      },
    }),
  },
  {
    name: 'a period sharing a day with a submitted one of the same user is a 409',
    method: 'POST',
    path: '/v1/timesheet-approvals',
    token: (c) => c.tokens.member.write,
    body: { period_start: '2026-11-15', period_end: '2026-11-20' },
    status: 409,
  },
  {
    name: 'the period ends on or after its start',
    method: 'POST',
    path: '/v1/timesheet-approvals',
    token: (c) => c.tokens.member.write,
    body: { period_start: '2026-12-10', period_end: '2026-12-09' },
    status: 422,
    field: 'period_end',
  },
  {
    name: 'a period is at most 366 days',
    method: 'POST',
    path: '/v1/timesheet-approvals',
    token: (c) => c.tokens.member.write,
    body: { period_start: '2027-01-01', period_end: '2028-01-02' },
    status: 422,
    field: 'period_end',
  },
  {
    name: 'a period of exactly 366 days is fine',
    method: 'POST',
    path: '/v1/timesheet-approvals',
    token: (c) => c.tokens.member.write,
    body: { period_start: '2027-01-01', period_end: '2028-01-01' },
    status: 201,
  },
  {
    name: 'a period is of real days',
    method: 'POST',
    path: '/v1/timesheet-approvals',
    token: (c) => c.tokens.member.write,
    body: { period_start: '2027-02-30', period_end: '2027-03-05' },
    status: 422,
    field: 'period_start',
  },
  {
    name: 'a read-only token cannot submit: 403',
    method: 'POST',
    path: '/v1/timesheet-approvals',
    token: (c) => c.tokens.member.read,
    body: { period_start: '2026-12-01', period_end: '2026-12-31' },
    status: 403,
  },
  {
    name: 'a member cannot approve their own timesheet: 403',
    method: 'POST',
    path: approve,
    token: (c) => c.tokens.member.write,
    body: {},
    status: 403,
  },
  {
    name: "a member does not see someone else's timesheet: approving it is a 404",
    method: 'POST',
    path: (c) => `/v1/timesheet-approvals/${c.admins.id}/approve`,
    token: (c) => c.tokens.member.write,
    body: {},
    status: 404,
  },
  {
    name: 'an admin approves with a comment',
    method: 'POST',
    path: approve,
    token: (c) => c.tokens.admin.write,
    body: { comment: 'Thanks' },
    status: 200,
    expect: (c: C) => ({
      timesheet_approval: {
        status: 'approved',
        comment: 'Thanks',
        reviewed_by: { id: c.admin.id },
        reviewed_at: '2026-11-21T12:00:00.000Z',
        note: 'First half',
      },
    }),
  },
  {
    name: 'an owner approves without a comment',
    method: 'POST',
    path: approve,
    token: (c) => c.tokens.owner.write,
    status: 200,
    expect: (c: C) => ({ timesheet_approval: { status: 'approved', comment: null, reviewed_by: { id: c.owner.id } } }),
  },
  {
    name: 'a rejection needs a comment',
    method: 'POST',
    path: reject,
    token: (c) => c.tokens.admin.write,
    body: { comment: '  ' },
    status: 422,
    field: 'comment',
  },
  {
    name: 'an admin rejects with a comment',
    method: 'POST',
    path: reject,
    token: (c) => c.tokens.admin.write,
    body: { comment: 'The 3rd is missing' },
    status: 200,
    expect: (c: C) => ({ timesheet_approval: { status: 'rejected', comment: 'The 3rd is missing', reviewed_by: { id: c.admin.id } } }),
  },
  {
    name: 'a member reads their own',
    method: 'GET',
    path: one,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ timesheet_approval: { id: c.submitted.id } }),
  },
  {
    name: "a member cannot read someone else's: 404",
    method: 'GET',
    path: (c) => `/v1/timesheet-approvals/${c.admins.id}`,
    token: (c) => c.tokens.member.read,
    status: 404,
  },
  {
    name: 'a member lists their own only',
    method: 'GET',
    path: '/v1/timesheet-approvals',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.submitted.id }] }),
  },
  {
    name: "an owner lists everyone's, filtered by user and status",
    method: 'GET',
    path: (c) => `/v1/timesheet-approvals?filter=${encodeURIComponent(`user="${c.admin.id}" && status="submitted" && period_end>="2026-11-30"`)}`,
    token: (c) => c.tokens.owner.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.admins.id, user: { id: c.admin.id } }] }),
  },
  {
    name: 'the submitter withdraws a submitted timesheet',
    method: 'DELETE',
    path: one,
    token: (c) => c.tokens.member.write,
    status: 204,
  },
  {
    name: "a member cannot withdraw someone else's: 404",
    method: 'DELETE',
    path: (c) => `/v1/timesheet-approvals/${c.admins.id}`,
    token: (c) => c.tokens.member.write,
    status: 404,
  },
])

test('reviews: only a submitted timesheet (409 after), a rejected period can be submitted again, an approved one only an admin withdraws', async () => {
  const c = await fixture()
  try {
    const rejected = (await post(c.t, c.tokens.admin.write, reject(c), { comment: 'No' })).timesheet_approval
    assert.equal(rejected.status, 'rejected')
    assert.equal((await c.t.req('POST', approve(c), { token: c.tokens.admin.write, body: {} })).status, 409)
    assert.equal((await c.t.req('POST', reject(c), { token: c.tokens.admin.write, body: { comment: 'Again' } })).status, 409)
    const again = (await post(c.t, c.tokens.member.write, '/v1/timesheet-approvals', { period_start: '2026-11-01', period_end: '2026-11-15' }))
      .timesheet_approval
    await post(c.t, c.tokens.admin.write, `/v1/timesheet-approvals/${again.id}/approve`, {})
    assert.equal(
      (await c.t.req('POST', '/v1/timesheet-approvals', { token: c.tokens.member.write, body: { period_start: '2026-10-20', period_end: '2026-11-01' } }))
        .status,
      409,
      'an approved period blocks an overlapping one',
    )
    assert.equal((await c.t.req('DELETE', `/v1/timesheet-approvals/${again.id}`, { token: c.tokens.member.write })).status, 403)
    assert.equal((await c.t.req('DELETE', one(c), { token: c.tokens.member.write })).status, 204, 'a rejected one can be withdrawn')
    assert.equal((await c.t.req('DELETE', `/v1/timesheet-approvals/${again.id}`, { token: c.tokens.admin.write })).status, 204)
  } finally {
    await c.t.close()
  }
})

test("an approved period locks its user's entries: create, edit, delete, move into it (409); outside is fine; withdrawing unlocks", async () => {
  const c = await fixture()
  try {
    await post(c.t, c.tokens.admin.write, approve(c), {})
    const tok = c.tokens.member.write
    const status = async (method: string, path: string, body?: unknown, token = tok) => {
      const r = await c.t.req(method, path, { token, body })
      if (r.status === 409) assert.match(r.body.error.message, /approved timesheet/)
      return r.status
    }
    const inside = `/v1/time-entries/${c.inside.id}`
    const outside = `/v1/time-entries/${c.outside.id}`
    assert.equal(await status('PATCH', inside, { note: 'x' }), 409)
    assert.equal(await status('PATCH', inside, { note: 'x' }, c.tokens.admin.write), 409, 'for owners and admins too')
    assert.equal(await status('DELETE', inside), 409)
    assert.equal(await status('POST', '/v1/time-entries', { card: c.card.id, started_at: '2026-11-15T23:30:00Z', duration_seconds: 60 }), 409)
    assert.equal(await status('PATCH', outside, { started_at: '2026-11-10T09:00:00Z' }), 409, 'moving an entry into the period')
    // Outside the period, and another user's time in it, are not locked.
    assert.equal(await status('POST', '/v1/time-entries', { card: c.card.id, started_at: '2026-11-16T00:00:00Z', duration_seconds: 60 }), 201)
    assert.equal(await status('PATCH', outside, { note: 'fine' }), 200)
    assert.equal(
      await status('POST', '/v1/time-entries', { card: c.card.id, started_at: '2026-11-05T09:00:00Z', duration_seconds: 60 }, c.tokens.owner.write),
      201,
    )
    assert.equal(await status('DELETE', outside), 204)
    // An admin withdraws the approval: the entries unlock.
    assert.equal(await status('DELETE', one(c), undefined, c.tokens.admin.write), 204)
    assert.equal(await status('PATCH', inside, { note: 'unlocked' }), 200)
  } finally {
    await c.t.close()
  }
})

test('a timer cannot start into an approved period, and a period with a running timer waits for it to stop before approval', async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.member.write
    const today = (await post(c.t, tok, '/v1/timesheet-approvals', { period_start: '2026-11-16', period_end: '2026-11-22' })).timesheet_approval
    await post(c.t, tok, '/v1/time-entries/timer/start', { card: c.card.id })
    const refused = await c.t.req('POST', `/v1/timesheet-approvals/${today.id}/approve`, { token: c.tokens.admin.write, body: {} })
    assert.equal(refused.status, 409)
    assert.match(refused.body.error.message, /timer/)
    await post(c.t, tok, '/v1/time-entries/timer/stop')
    await post(c.t, c.tokens.admin.write, `/v1/timesheet-approvals/${today.id}/approve`, {})
    const start = await c.t.req('POST', '/v1/time-entries/timer/start', { token: tok, body: { card: c.card.id } })
    assert.equal(start.status, 409)
    assert.match(start.body.error.message, /2026-11-21 is in an approved timesheet/)
    assert.deepEqual((await c.t.req('GET', '/v1/time-entries/timer', { token: tok })).body, { time_entry: null })
    // Someone else's timer is not locked by it.
    assert.equal((await c.t.req('POST', '/v1/time-entries/timer/start', { token: c.tokens.admin.write, body: { card: c.card.id } })).status, 201)
  } finally {
    await c.t.close()
  }
})

test('time that crosses into an approved period is refused on every path: crossing its start, crossing its end, enclosing it; create, edit, timer stop', async () => {
  const c = await fixture()
  try {
    await post(c.t, c.tokens.admin.write, approve(c), {}) // 2026-11-01 to 2026-11-15
    const tok = c.tokens.member.write
    const short = (await post(c.t, tok, '/v1/timesheet-approvals', { period_start: '2026-11-18', period_end: '2026-11-18' })).timesheet_approval
    await post(c.t, c.tokens.admin.write, `/v1/timesheet-approvals/${short.id}/approve`, {})
    const refused = (r: { status: number; text: string; body: any }, why: string) => {
      assert.equal(r.status, 409, `${why}: ${r.text}`)
      assert.equal(r.body.error.code, 'conflict')
      assert.match(r.body.error.message, /is in an approved timesheet \(2026-11-\d\d to 2026-11-\d\d\): its time entries are locked/)
    }
    const create = (started_at: string, duration_seconds: number) =>
      c.t.req('POST', '/v1/time-entries', { token: tok, body: { card: c.card.id, started_at, duration_seconds } })
    const entries = async () => (await c.t.req('GET', '/v1/time-entries?per_page=500', { token: tok })).body.totalItems as number
    const before = await entries()

    // Create: from the evening before the period into it, from inside it past its end, and around a whole period.
    refused(await create('2026-10-31T23:00:00Z', 7200), 'crossing the start')
    refused(await create('2026-11-15T23:00:00Z', 7200), 'crossing the end')
    refused(await create('2026-11-17T20:00:00Z', 36 * 3600), 'enclosing the period')
    assert.equal(await entries(), before, 'nothing was stored')
    // Time that ends as the period begins, or begins as it ends, is not in it.
    const evening = (await create('2026-10-31T23:00:00Z', 3600)).body.time_entry
    assert.ok(evening, 'an hour ending at the period’s first midnight is not in it')
    assert.equal((await create('2026-11-16T00:00:00Z', 3600)).status, 201)

    // Edit: lengthening an entry of the day before into the period, moving one so that it crosses, or so that it encloses.
    refused(await c.t.req('PATCH', `/v1/time-entries/${evening.id}`, { token: tok, body: { duration_seconds: 7200 } }), 'lengthened across the start')
    refused(await c.t.req('PATCH', `/v1/time-entries/${evening.id}`, { token: tok, body: { ended_at: '2026-11-01T00:30:00Z' } }), 'ended inside')
    refused(
      await c.t.req('PATCH', `/v1/time-entries/${c.outside.id}`, { token: tok, body: { started_at: '2026-11-17T20:00:00Z', duration_seconds: 36 * 3600 } }),
      'moved around the short period',
    )
    refused(await c.t.req('PATCH', `/v1/time-entries/${c.outside.id}`, { token: tok, body: { started_at: '2026-11-17T23:30:00Z' } }), 'moved across its start')
    const unchanged = (await c.t.req('GET', `/v1/time-entries/${evening.id}`, { token: tok })).body.time_entry
    assert.deepEqual([unchanged.started_at, unchanged.duration_seconds], ['2026-10-31T23:00:00.000Z', 3600])

    // Timer: a period approved ahead of time; a timer started the day before runs into it and cannot be stopped there.
    const tomorrow = (await post(c.t, tok, '/v1/timesheet-approvals', { period_start: '2026-11-22', period_end: '2026-11-22' })).timesheet_approval
    await post(c.t, c.tokens.admin.write, `/v1/timesheet-approvals/${tomorrow.id}/approve`, {})
    const timer = (await post(c.t, tok, '/v1/time-entries/timer/start', { card: c.card.id })).time_entry
    c.t.clock.advance(13 * 3600_000) // 2026-11-22T01:00Z
    refused(await c.t.req('POST', '/v1/time-entries/timer/stop', { token: tok }), 'a timer stopped inside the period')
    refused(await c.t.req('POST', '/v1/time-entries/timer/start', { token: tok, body: { card: c.card.id } }), 'a new timer stops the old one inside the period')
    assert.equal((await c.t.req('GET', '/v1/time-entries/timer', { token: tok })).body.time_entry.id, timer.id, 'the timer still runs, unrecorded')
    // Withdrawing the approval unlocks it.
    assert.equal((await c.t.req('DELETE', `/v1/timesheet-approvals/${tomorrow.id}`, { token: c.tokens.admin.write })).status, 204)
    assert.equal((await c.t.req('POST', '/v1/time-entries/timer/stop', { token: tok })).status, 200)
  } finally {
    await c.t.close()
  }
})

test('a period is not approved while a timer of its user that started before its end still runs (it would run into it)', async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.member.write
    const tomorrow = (await post(c.t, tok, '/v1/timesheet-approvals', { period_start: '2026-11-22', period_end: '2026-11-22' })).timesheet_approval
    await post(c.t, tok, '/v1/time-entries/timer/start', { card: c.card.id }) // 2026-11-21
    const r = await c.t.req('POST', `/v1/timesheet-approvals/${tomorrow.id}/approve`, { token: c.tokens.admin.write, body: {} })
    assert.equal(r.status, 409, r.text)
    assert.match(r.body.error.message, /timer/)
    await post(c.t, tok, '/v1/time-entries/timer/stop')
    await post(c.t, c.tokens.admin.write, `/v1/timesheet-approvals/${tomorrow.id}/approve`, {})
  } finally {
    await c.t.close()
  }
})
