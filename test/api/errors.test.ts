// One error shape everywhere: unknown routes, bad JSON, content type, body size, paging and sorting.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { runScenarios } from '../helpers/scenarios.js'

const big = JSON.stringify({ name: 'x'.repeat(1_100_000) })

runScenarios('errors', seededApp, [
  {
    name: 'unknown route is JSON 404',
    method: 'GET',
    path: '/v1/nothing-here',
    token: (c) => c.tokens.member.read,
    status: 404,
    expect: { error: { code: 'not_found' } },
  },
  { name: 'unknown route without token', method: 'GET', path: '/nope', status: 404, expect: { error: { code: 'not_found' } } },
  {
    name: 'malformed JSON',
    method: 'POST',
    path: '/v1/boards',
    token: (c) => c.tokens.member.write,
    raw: '{"name":',
    headers: { 'content-type': 'application/json' },
    status: 400,
    expect: { error: { code: 'bad_request' } },
  },
  {
    name: 'wrong content type',
    method: 'POST',
    path: '/v1/boards',
    token: (c) => c.tokens.member.write,
    raw: 'name=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    status: 415,
    expect: { error: { code: 'unsupported_media_type' } },
  },
  {
    name: 'text body',
    method: 'POST',
    path: '/v1/boards',
    token: (c) => c.tokens.member.write,
    raw: '{"name":"x"}',
    headers: { 'content-type': 'text/plain' },
    status: 415,
  },
  {
    name: 'too large',
    method: 'POST',
    path: '/v1/boards',
    token: (c) => c.tokens.member.write,
    raw: big,
    headers: { 'content-type': 'application/json' },
    status: 413,
    expect: { error: { code: 'payload_too_large' } },
  },
  {
    name: 'JSON array body',
    method: 'POST',
    path: '/v1/boards',
    token: (c) => c.tokens.member.write,
    body: [1, 2],
    status: 422,
    field: '(root)',
    expect: { error: { code: 'validation_failed' } },
  },
  {
    name: 'page 0',
    method: 'GET',
    path: '/v1/cards?page=0',
    token: (c) => c.tokens.member.read,
    status: 400,
    expect: { error: { code: 'bad_request', details: [{ path: 'page' }] } },
  },
  {
    name: 'per_page over 500',
    method: 'GET',
    path: '/v1/cards?per_page=501',
    token: (c) => c.tokens.member.read,
    status: 400,
    expect: { error: { code: 'bad_request', details: [{ path: 'per_page' }] } },
  },
  { name: 'per_page not a number', method: 'GET', path: '/v1/boards?per_page=abc', token: (c) => c.tokens.member.read, status: 400 },
  {
    name: 'unknown sort field',
    method: 'GET',
    path: '/v1/cards?sort=-colour',
    token: (c) => c.tokens.member.read,
    status: 400,
    expect: { error: { code: 'bad_request' } },
  },
  { name: 'unknown expand', method: 'GET', path: '/v1/cards?expand=owner', token: (c) => c.tokens.member.read, status: 400 },
  {
    name: 'unparseable filter',
    method: 'GET',
    path: `/v1/cards?filter=${encodeURIComponent('title = ')}`,
    token: (c) => c.tokens.member.read,
    status: 400,
    expect: { error: { code: 'invalid_filter' } },
  },
  {
    name: 'a fraction for a whole-number field',
    method: 'GET',
    path: `/v1/cards?filter=${encodeURIComponent('priority > 1.5')}`,
    token: (c) => c.tokens.member.read,
    status: 400,
    expect: { error: { code: 'invalid_filter', message: 'at 12: "priority" takes a whole number, found 1.5' } },
  },
  {
    name: 'a NUL character in a filter value',
    method: 'GET',
    path: `/v1/cards?filter=${encodeURIComponent('title ~ "a\u0000b"')}`,
    token: (c) => c.tokens.member.read,
    status: 400,
    expect: { error: { code: 'bad_request' } },
  },
  {
    name: 'a NUL character in an id is no such record',
    method: 'GET',
    path: '/v1/cards/a%00b',
    token: (c) => c.tokens.member.read,
    status: 404,
  },
  {
    name: 'a NUL character in a body field',
    method: 'POST',
    path: '/v1/cards',
    token: (c) => c.tokens.member.write,
    body: (c: { board: { id: string } }) => ({ board: c.board.id, title: 'a\u0000b' }),
    status: 422,
    field: 'title',
    events: [],
  },
  {
    name: 'filter on tokens',
    method: 'GET',
    path: `/v1/tokens?filter=${encodeURIComponent("name='x'")}`,
    token: (c) => c.tokens.member.read,
    status: 400,
    expect: { error: { code: 'invalid_filter' } },
  },
  {
    name: 'very long id is just not found',
    method: 'GET',
    path: `/v1/cards/${'x'.repeat(300)}`,
    token: (c) => c.tokens.member.read,
    status: 404,
    expect: { error: { code: 'not_found' } },
  },
  {
    name: 'unsupported method on a known path is 405 with Allow',
    method: 'PUT',
    path: (c) => `/v1/boards/${c.board.id}`,
    token: (c) => c.tokens.member.write,
    body: { name: 'x' },
    status: 405,
    expect: { error: { code: 'method_not_allowed' } },
    after: (_c, r: any) => assert.equal(r.headers.get('allow'), 'GET, PATCH, DELETE'),
  },
  { name: 'unknown card', method: 'GET', path: '/v1/cards/doesnotexist', token: (c) => c.tokens.member.read, status: 404 },
  {
    name: 'PATCH with unknown field',
    method: 'PATCH',
    path: (c) => `/v1/boards/${c.board.id}`,
    token: (c) => c.tokens.member.write,
    body: { owner: 'me' },
    status: 422,
    field: 'owner',
  },
])

test('TASKD_RATE_LIMIT=on: 429 with Retry-After after 600 requests a minute per token, by the injected clock', async () => {
  const c = await seededApp({ rateLimit: 'on' })
  try {
    let last
    for (let i = 0; i < 600; i++) last = await c.t.req('GET', '/v1/users/me', { token: c.tokens.member.read })
    assert.equal(last!.status, 200)
    const limited = await c.t.req('GET', '/v1/users/me', { token: c.tokens.member.read })
    assert.equal(limited.status, 429)
    assert.equal(limited.body.error.code, 'rate_limited')
    assert.ok(Number(limited.headers.get('retry-after')) >= 1)
    assert.equal((await c.t.req('GET', '/v1/users/me', { token: c.tokens.member.write })).status, 200, 'other tokens are not affected')
    c.t.clock.advance(60_000)
    assert.equal((await c.t.req('GET', '/v1/users/me', { token: c.tokens.member.read })).status, 200)
  } finally {
    await c.t.close()
  }
})
