// Time entries through HTTP: the one running timer per user (with the injected clock), timer events as a local
// receiver gets them, entries recorded by hand and their rules, who may read and change which entry, the list's filter,
// sort and expand, and the cascade of a card deleted for good.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { publicBaseUrl } from '../../src/config.js'
import { seededApp, type TestApp } from '../helpers/app.js'
import { dbAll, dbGet } from '../helpers/db.js'
import { runScenarios } from '../helpers/scenarios.js'
import { createSub, webhookApp } from '../webhooks/fixtures.js'

const T0 = '2026-11-21T12:00:00.000Z'

async function post(t: TestApp, token: string, path: string, body?: unknown) {
  const r = await t.req('POST', path, { token, body })
  assert.ok(r.status === 200 || r.status === 201, `${path}: ${r.status} ${r.text}`)
  return r.body
}

async function fixture() {
  const s = await seededApp()
  const { t, tokens } = s
  // The outsider is a member of another board only.
  const other = (await t.req('POST', '/v1/boards', { token: tokens.outsider.write, body: { name: 'Other', key_prefix: 'OTH' } })).body.board
  const card = (await post(t, tokens.member.write, '/v1/cards', { board: s.board.id, title: 'Ship it' })).card
  const card2 = (await post(t, tokens.member.write, '/v1/cards', { board: s.board.id, title: 'Test it' })).card
  const mine = (
    await post(t, tokens.member.write, '/v1/time-entries', { card: card.id, started_at: '2026-11-20T09:00:00Z', duration_seconds: 3600, note: 'Draft' })
  ).time_entry
  const admins = (
    await post(t, tokens.admin.write, '/v1/time-entries', {
      card: card2.id,
      started_at: '2026-11-19T09:00:00Z',
      ended_at: '2026-11-19T09:30:00Z',
      billable: false,
    })
  ).time_entry
  return { ...s, other, card, card2, mine, admins }
}
type C = Awaited<ReturnType<typeof fixture>>

const entry = (c: C) => `/v1/time-entries/${c.mine.id}`
const manual = (over: Record<string, unknown>) => (c: C) => ({ card: c.card.id, started_at: '2026-11-20T13:00:00Z', ...over })

runScenarios<C>('time entries', fixture, [
  {
    name: 'a member starts a timer: a billable entry without an end, timer.started',
    method: 'POST',
    path: '/v1/time-entries/timer/start',
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card.id, note: 'Focus' }),
    status: 201,
    events: ['timer.started'],
    expect: (c: C) => ({
      time_entry: {
        card: c.card.id,
        user: { id: c.member.id },
        started_at: T0,
        ended_at: null,
        duration_seconds: 0,
        note: 'Focus',
        billable: true,
        created: T0,
        updated: T0,
      },
    }),
  },
  {
    name: 'a member of another board cannot start a timer on the card: 404',
    method: 'POST',
    path: '/v1/time-entries/timer/start',
    token: (c) => c.tokens.outsider.write,
    body: (c: C) => ({ card: c.card.id }),
    status: 404,
    events: [],
  },
  {
    name: 'a read-only token cannot start a timer: 403',
    method: 'POST',
    path: '/v1/time-entries/timer/start',
    token: (c) => c.tokens.member.read,
    body: (c: C) => ({ card: c.card.id }),
    status: 403,
  },
  {
    name: 'starting a timer names a card',
    method: 'POST',
    path: '/v1/time-entries/timer/start',
    token: (c) => c.tokens.member.write,
    body: { note: 'x' },
    status: 422,
    field: 'card',
  },
  {
    name: 'stopping when no timer runs is a 404',
    method: 'POST',
    path: '/v1/time-entries/timer/stop',
    token: (c) => c.tokens.member.write,
    status: 404,
    events: [],
  },
  {
    name: 'no timer runs: GET timer answers null',
    method: 'GET',
    path: '/v1/time-entries/timer',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: { time_entry: null },
  },
  {
    name: 'an entry by hand with ended_at: the duration is computed, offsets become UTC, nothing is emitted',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: manual({ started_at: '2026-11-20T10:00:00+02:00', ended_at: '2026-11-20T09:15:30Z' }),
    status: 201,
    events: [],
    expect: (c: C) => ({
      time_entry: {
        card: c.card.id,
        user: { id: c.member.id },
        started_at: '2026-11-20T08:00:00.000Z',
        ended_at: '2026-11-20T09:15:30.000Z',
        duration_seconds: 4530,
        note: '',
        billable: true,
      },
    }),
  },
  {
    name: 'an entry by hand with duration_seconds: the end is computed',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: manual({ duration_seconds: 600, billable: false, note: 'Call' }),
    status: 201,
    expect: {
      time_entry: { started_at: '2026-11-20T13:00:00.000Z', ended_at: '2026-11-20T13:10:00.000Z', duration_seconds: 600, billable: false, note: 'Call' },
    },
  },
  {
    name: 'an entry needs ended_at or duration_seconds',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: manual({}),
    status: 422,
    field: 'ended_at',
  },
  {
    name: 'an entry takes ended_at or duration_seconds, not both',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: manual({ ended_at: '2026-11-20T14:00:00Z', duration_seconds: 60 }),
    status: 422,
    field: 'duration_seconds',
  },
  {
    name: 'an entry ends after it starts',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: manual({ ended_at: '2026-11-20T12:59:00Z' }),
    status: 422,
    field: 'ended_at',
  },
  {
    name: 'an entry lasts at most 7 days (by its end)',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: manual({ ended_at: '2026-11-27T13:00:01Z' }),
    status: 422,
    field: 'ended_at',
  },
  {
    name: 'an entry lasts at most 7 days (by its duration)',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: manual({ duration_seconds: 7 * 86400 + 1 }),
    status: 422,
    field: 'duration_seconds',
  },
  {
    name: 'exactly 7 days is allowed',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: manual({ duration_seconds: 7 * 86400 }),
    status: 201,
    expect: { time_entry: { ended_at: '2026-11-27T13:00:00.000Z' } },
  },
  {
    name: 'started_at is a date-time with an offset',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: manual({ started_at: '2026-11-20', duration_seconds: 60 }),
    status: 422,
    field: 'started_at',
  },
  {
    name: 'a member of another board cannot record time on the card: 404',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.outsider.write,
    body: manual({ duration_seconds: 60 }),
    status: 404,
  },
  {
    name: 'a member cannot record time for someone else: 403',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: (c: C) => manual({ duration_seconds: 60, user: c.admin.id })(c),
    status: 403,
  },
  {
    name: 'a member may name themselves as the user',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.write,
    body: (c: C) => manual({ duration_seconds: 60, user: c.member.id })(c),
    status: 201,
    expect: (c: C) => ({ time_entry: { user: { id: c.member.id } } }),
  },
  {
    name: 'an admin records time for a member of the board',
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.admin.write,
    body: (c: C) => manual({ duration_seconds: 60, user: c.member.id })(c),
    status: 201,
    expect: (c: C) => ({ time_entry: { user: { id: c.member.id } } }),
  },
  {
    name: "an admin cannot record time for someone who does not see the card's board",
    method: 'POST',
    path: '/v1/time-entries',
    token: (c) => c.tokens.admin.write,
    body: (c: C) => manual({ duration_seconds: 60, user: c.outsider.id })(c),
    status: 422,
    field: 'user',
  },
  {
    name: 'a board member reads an entry of someone else, with its user and card expanded',
    method: 'GET',
    path: (c) => `/v1/time-entries/${c.admins.id}?expand=user,card`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({
      time_entry: {
        id: c.admins.id,
        user: { id: c.admin.id },
        duration_seconds: 1800,
        billable: false,
        expand: { user: { id: c.admin.id }, card: { id: c.card2.id } },
      },
    }),
  },
  {
    name: 'a member of another board cannot read an entry: 404',
    method: 'GET',
    path: entry,
    token: (c) => c.tokens.outsider.read,
    status: 404,
  },
  {
    name: 'a member edits their own entry: a new start alone moves it, its duration stays',
    method: 'PATCH',
    path: entry,
    token: (c) => c.tokens.member.write,
    body: { started_at: '2026-11-20T14:00:00Z', note: 'Moved', billable: false },
    status: 200,
    expect: {
      time_entry: { started_at: '2026-11-20T14:00:00.000Z', ended_at: '2026-11-20T15:00:00.000Z', duration_seconds: 3600, note: 'Moved', billable: false },
    },
  },
  {
    name: 'a new end changes the duration',
    method: 'PATCH',
    path: entry,
    token: (c) => c.tokens.member.write,
    body: { ended_at: '2026-11-20T09:45:00Z' },
    status: 200,
    expect: { time_entry: { started_at: '2026-11-20T09:00:00.000Z', ended_at: '2026-11-20T09:45:00.000Z', duration_seconds: 2700 } },
  },
  {
    name: 'a new duration changes the end',
    method: 'PATCH',
    path: entry,
    token: (c) => c.tokens.member.write,
    body: { duration_seconds: 120 },
    status: 200,
    expect: { time_entry: { ended_at: '2026-11-20T09:02:00.000Z', duration_seconds: 120 } },
  },
  {
    name: 'an entry moves to another card the caller sees',
    method: 'PATCH',
    path: entry,
    token: (c) => c.tokens.member.write,
    body: (c: C) => ({ card: c.card2.id }),
    status: 200,
    expect: (c: C) => ({ time_entry: { card: c.card2.id } }),
  },
  {
    name: 'an edit keeps the end after the start',
    method: 'PATCH',
    path: entry,
    token: (c) => c.tokens.member.write,
    body: { ended_at: '2026-11-20T08:00:00Z' },
    status: 422,
    field: 'ended_at',
  },
  {
    name: 'an edit takes ended_at or duration_seconds, not both',
    method: 'PATCH',
    path: entry,
    token: (c) => c.tokens.member.write,
    body: { ended_at: '2026-11-20T10:00:00Z', duration_seconds: 60 },
    status: 422,
    field: 'duration_seconds',
  },
  {
    name: "a member cannot edit someone else's entry: 403",
    method: 'PATCH',
    path: (c) => `/v1/time-entries/${c.admins.id}`,
    token: (c) => c.tokens.member.write,
    body: { note: 'Mine now' },
    status: 403,
  },
  {
    name: "a member cannot delete someone else's entry: 403",
    method: 'DELETE',
    path: (c) => `/v1/time-entries/${c.admins.id}`,
    token: (c) => c.tokens.member.write,
    status: 403,
  },
  {
    name: "an admin edits a member's entry",
    method: 'PATCH',
    path: entry,
    token: (c) => c.tokens.admin.write,
    body: { note: 'Checked' },
    status: 200,
    expect: (c: C) => ({ time_entry: { note: 'Checked', user: { id: c.member.id } } }),
  },
  {
    name: "an owner who is not on the board deletes a member's entry",
    method: 'DELETE',
    path: entry,
    token: (c) => c.tokens.owner.write,
    status: 204,
    after: async (c) => assert.equal((await c.t.req('GET', entry(c), { token: c.tokens.member.read })).status, 404),
  },
  {
    name: 'a member deletes their own entry',
    method: 'DELETE',
    path: entry,
    token: (c) => c.tokens.member.write,
    status: 204,
  },
  {
    name: 'a member of another board cannot edit an entry: 404',
    method: 'PATCH',
    path: entry,
    token: (c) => c.tokens.outsider.write,
    body: { note: 'x' },
    status: 404,
  },
  {
    name: 'a member of another board cannot delete an entry: 404',
    method: 'DELETE',
    path: entry,
    token: (c) => c.tokens.outsider.write,
    status: 404,
  },
  {
    name: 'a read-only token cannot edit its own entry: 403',
    method: 'PATCH',
    path: entry,
    token: (c) => c.tokens.member.read,
    body: { note: 'x' },
    status: 403,
  },
  {
    name: 'a read-only token cannot delete its own entry: 403',
    method: 'DELETE',
    path: entry,
    token: (c) => c.tokens.member.read,
    status: 403,
  },
  {
    name: 'the list: newest start first',
    method: 'GET',
    path: '/v1/time-entries',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ page: 1, perPage: 30, totalItems: 2, totalPages: 1, items: [{ id: c.mine.id }, { id: c.admins.id }] }),
  },
  {
    name: 'the list filtered by user and billable, sorted by duration, with expand',
    method: 'GET',
    path: (c) =>
      `/v1/time-entries?filter=${encodeURIComponent(`user="${c.admin.id}" && billable=false && duration_seconds<3600`)}&sort=duration_seconds&expand=card`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.admins.id, expand: { card: { id: c.card2.id, key: c.card2.key } } }] }),
  },
  {
    name: 'the list filtered by the card relation and by started_at',
    method: 'GET',
    path: `/v1/time-entries?filter=${encodeURIComponent(`card.title="Ship it" && started_at>="2026-11-20"`)}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.mine.id }] }),
  },
  {
    name: 'the list sorted by duration, shortest first',
    method: 'GET',
    path: '/v1/time-entries?sort=duration_seconds',
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({
      items: [
        { id: c.admins.id, duration_seconds: 1800 },
        { id: c.mine.id, duration_seconds: 3600 },
      ],
    }),
  },
  {
    name: 'the list of one card',
    method: 'GET',
    path: (c) => `/v1/time-entries?card=${c.card2.id}`,
    token: (c) => c.tokens.member.read,
    status: 200,
    expect: (c: C) => ({ totalItems: 1, items: [{ id: c.admins.id }] }),
  },
  {
    name: 'a member of another board sees none of them',
    method: 'GET',
    path: '/v1/time-entries',
    token: (c) => c.tokens.outsider.read,
    status: 200,
    expect: { totalItems: 0, items: [] },
  },
  {
    name: 'an unknown filter field is a 400',
    method: 'GET',
    path: `/v1/time-entries?filter=${encodeURIComponent('seconds>1')}`,
    token: (c) => c.tokens.member.read,
    status: 400,
  },
  {
    name: 'an unknown sort field is a 400',
    method: 'GET',
    path: '/v1/time-entries?sort=note',
    token: (c) => c.tokens.member.read,
    status: 400,
  },
])

const events = async (t: TestApp) => dbAll<{ name: string; data: string }>(t.deps.db, 'SELECT name, data FROM events ORDER BY seq')

test('one running timer per user: starting another stops the first with its duration and timer.stopped; stop, stop again, GET', async () => {
  const c = await fixture()
  try {
    const tok = c.tokens.member.write
    const before = (await events(c.t)).length
    const a = (await post(c.t, tok, '/v1/time-entries/timer/start', { card: c.card.id })).time_entry
    c.t.clock.advance(90_500)
    const running = await c.t.req('GET', '/v1/time-entries/timer', { token: c.tokens.member.read })
    assert.deepEqual([running.body.time_entry.id, running.body.time_entry.duration_seconds, running.body.time_entry.ended_at], [a.id, 90, null])
    const b = (await post(c.t, tok, '/v1/time-entries/timer/start', { card: c.card2.id, note: 'Next' })).time_entry
    assert.deepEqual([b.card, b.started_at, b.ended_at], [c.card2.id, '2026-11-21T12:01:30.500Z', null])
    const stoppedA = (await c.t.req('GET', `/v1/time-entries/${a.id}`, { token: c.tokens.member.read })).body.time_entry
    assert.deepEqual([stoppedA.ended_at, stoppedA.duration_seconds], ['2026-11-21T12:01:30.500Z', 90])
    const emitted = (await events(c.t)).slice(before)
    assert.deepEqual(
      emitted.map((e) => [e.name, JSON.parse(e.data).id]),
      [
        ['timer.started', a.id],
        ['timer.stopped', a.id],
        ['timer.started', b.id],
      ],
    )
    assert.equal(JSON.parse(emitted[1].data).duration_seconds, 90)
    // An admin's timer is their own: it does not touch the member's.
    await post(c.t, c.tokens.admin.write, '/v1/time-entries/timer/start', { card: c.card.id })
    c.t.clock.advance(30_000)
    const stopped = await c.t.req('POST', '/v1/time-entries/timer/stop', { token: tok })
    assert.equal(stopped.status, 200, stopped.text)
    assert.deepEqual([stopped.body.time_entry.id, stopped.body.time_entry.duration_seconds, stopped.body.time_entry.note], [b.id, 30, 'Next'])
    assert.equal((await c.t.req('POST', '/v1/time-entries/timer/stop', { token: tok })).status, 404)
    assert.deepEqual((await c.t.req('GET', '/v1/time-entries/timer', { token: c.tokens.member.read })).body, { time_entry: null })
    assert.notEqual((await c.t.req('GET', '/v1/time-entries/timer', { token: c.tokens.admin.read })).body.time_entry, null)
  } finally {
    await c.t.close()
  }
})

test('a running timer ends only by stopping it; its start may move back, not into the future', async () => {
  const c = await fixture()
  try {
    const a = (await post(c.t, c.tokens.member.write, '/v1/time-entries/timer/start', { card: c.card.id })).time_entry
    const path = `/v1/time-entries/${a.id}`
    for (const body of [{ ended_at: '2026-11-21T13:00:00Z' }, { duration_seconds: 60 }]) {
      const r = await c.t.req('PATCH', path, { token: c.tokens.member.write, body })
      assert.equal(r.status, 422, r.text)
      assert.equal(r.body.error.details[0].path, Object.keys(body)[0])
    }
    const future = await c.t.req('PATCH', path, { token: c.tokens.member.write, body: { started_at: '2026-11-21T12:00:01Z' } })
    assert.equal(future.status, 422)
    const moved = await c.t.req('PATCH', path, { token: c.tokens.member.write, body: { started_at: '2026-11-21T11:00:00Z' } })
    assert.deepEqual([moved.status, moved.body.time_entry.duration_seconds, moved.body.time_entry.ended_at], [200, 3600, null])
  } finally {
    await c.t.close()
  }
})

test('a timer on a board out of sight: GET shows null, but its user can still stop it (their own time)', async () => {
  const c = await fixture()
  try {
    const a = (await post(c.t, c.tokens.member.write, '/v1/time-entries/timer/start', { card: c.card.id })).time_entry
    assert.equal((await c.t.req('DELETE', `/v1/boards/${c.board.id}/members/${c.member.id}`, { token: c.tokens.owner.write })).status, 204)
    assert.deepEqual((await c.t.req('GET', '/v1/time-entries/timer', { token: c.tokens.member.read })).body, { time_entry: null })
    c.t.clock.advance(5000)
    const stopped = await c.t.req('POST', '/v1/time-entries/timer/stop', { token: c.tokens.member.write })
    assert.equal(stopped.status, 200, stopped.text)
    assert.equal(stopped.body.time_entry.id, a.id)
    assert.equal(stopped.body.time_entry.duration_seconds, 5)
    assert.equal((await c.t.req('POST', '/v1/time-entries/timer/stop', { token: c.tokens.member.write })).status, 404)
    // Stopped, it no longer holds up the approval of its day.
    const submitted = (await post(c.t, c.tokens.member.write, '/v1/timesheet-approvals', { period_start: '2026-11-21', period_end: '2026-11-21' }))
      .timesheet_approval
    assert.equal((await c.t.req('POST', `/v1/timesheet-approvals/${submitted.id}/approve`, { token: c.tokens.admin.write, body: {} })).status, 200)
  } finally {
    await c.t.close()
  }
})

test('timer events reach a receiver with the entry, its user, the task key, title and link, and the actor', async () => {
  const c = await webhookApp()
  try {
    await createSub(c, c.tokens.owner.write, { url: `${c.receiver.url}/ok`, events: ['timer.*'] })
    const tok = c.tokens.member.write
    const card = (await post(c.t, tok, '/v1/cards', { board: c.board.id, title: 'Ship it' })).card
    const started = (await post(c.t, tok, '/v1/time-entries/timer/start', { card: card.id, note: 'Focus' })).time_entry
    c.t.clock.advance(125_000)
    await post(c.t, tok, '/v1/time-entries/timer/stop')
    while ((await c.scheduler.runOnce()) > 0);
    assert.equal(c.receiver.hits.length, 2)
    const data = (event: string) => c.receiver.hits.find((h) => h.json.event === event)?.json.data
    const user = { id: c.member.id, name: started.user.name }
    const refs = {
      card: { id: card.id, key: card.key, title: 'Ship it', url: `${publicBaseUrl(c.t.deps.config)}/v1/cards/${card.id}` },
      board: { id: c.board.id, name: 'Launch' },
      actor: user,
    }
    const entry = { id: started.id, user, started_at: T0, note: 'Focus', billable: true }
    assert.deepEqual(data('timer.started'), { ...entry, ended_at: null, duration_seconds: 0, ...refs })
    assert.deepEqual(data('timer.stopped'), { ...entry, ended_at: '2026-11-21T12:02:05.000Z', duration_seconds: 125, ...refs })
    // The documented field list, in order.
    assert.deepEqual(Object.keys(data('timer.stopped')), [
      'id',
      'user',
      'started_at',
      'ended_at',
      'duration_seconds',
      'note',
      'billable',
      'card',
      'board',
      'actor',
    ])
  } finally {
    await c.close()
  }
})

test('a card deleted for good takes its time entries along, its running timer too', async () => {
  const c = await fixture()
  try {
    const count = async () => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM time_entries WHERE card_id = ?', c.card.id))!.n)
    await post(c.t, c.tokens.member.write, '/v1/time-entries/timer/start', { card: c.card.id })
    assert.equal(await count(), 2)
    assert.equal((await c.t.req('DELETE', `/v1/cards/${c.card.id}?permanent=true`, { token: c.tokens.member.write })).status, 204)
    assert.equal(await count(), 0)
    assert.equal((await c.t.req('GET', `/v1/time-entries/${c.mine.id}`, { token: c.tokens.member.read })).status, 404)
    assert.deepEqual((await c.t.req('GET', '/v1/time-entries/timer', { token: c.tokens.member.read })).body, { time_entry: null })
  } finally {
    await c.t.close()
  }
})

test('a running timer cannot be moved back more than 7 days; totals refuse a bad sort or expand like lists do', async () => {
  const s = await seededApp()
  try {
    const tok = s.tokens.member.write
    const card = (await s.t.req('POST', '/v1/cards', { token: tok, body: { board: s.board.id, title: 'Timed' } })).body.card
    const started = (await s.t.req('POST', '/v1/time-entries/timer/start', { token: tok, body: { card: card.id } })).body.time_entry
    const back = (days: number) => new Date(s.t.clock.now() - days * 86_400_000).toISOString()
    const far = await s.t.req('PATCH', `/v1/time-entries/${started.id}`, { token: tok, body: { started_at: back(8) } })
    assert.equal(far.status, 422)
    assert.equal(far.body.error.details[0].path, 'started_at')
    assert.equal((await s.t.req('PATCH', `/v1/time-entries/${started.id}`, { token: tok, body: { started_at: back(6) } })).status, 200)
    assert.equal((await s.t.req('GET', '/v1/time-entries?group_by=day&sort=bogus', { token: tok })).status, 400)
    assert.equal((await s.t.req('GET', '/v1/time-entries?group_by=day&expand=nope', { token: tok })).status, 400)
    assert.equal((await s.t.req('GET', '/v1/time-entries?group_by=day&sort=-started_at', { token: tok })).status, 200)
  } finally {
    await s.t.close()
  }
})
