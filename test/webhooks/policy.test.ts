// Pure rules: how an attempt's result is judged, the retry schedule, and how delivery headers combine.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { deliveryHeaders, headerNameProblem } from '../../src/delivery/headers.js'
import { judgeAttempt, MAX_ATTEMPTS, retryDelayMs } from '../../src/delivery/policy.js'
import type { SendResult } from '../../src/delivery/send.js'

const r = (outcome: SendResult['outcome'], statusCode: number | null = null): SendResult => ({
  outcome,
  statusCode,
  responseExcerpt: '',
  responseHeaders: {},
  durationMs: 1,
})

test('judgeAttempt: only timeouts, connection errors and 5xx are retried, up to five attempts', () => {
  const table: [SendResult, number, string, string][] = [
    [r('ok', 204), 1, 'delivered', 'delivered'],
    [r('redirect', 301), 1, 'failed', 'failed'],
    [r('client_error', 404), 1, 'dropped', 'dropped'],
    [r('client_error', 429), 1, 'dropped', 'dropped'],
    [r('refused_target'), 1, 'failed', 'failed'],
    [r('server_error', 503), 1, 'retrying', 'pending'],
    [r('timeout'), 4, 'retrying', 'pending'],
    [r('network_error'), 2, 'retrying', 'pending'],
    [r('server_error', 500), MAX_ATTEMPTS, 'failed', 'failed'],
    [r('timeout'), MAX_ATTEMPTS, 'failed', 'failed'],
  ]
  for (const [result, attempt, outcome, status] of table) {
    const v = judgeAttempt(result, attempt)
    assert.deepEqual([v.outcome, v.status], [outcome, status], `${result.outcome} ${result.statusCode} attempt ${attempt}`)
    assert.equal(v.error === undefined, outcome === 'delivered')
  }
})

test('retryDelayMs follows the configured list and repeats its last entry', () => {
  assert.deepEqual(
    [1, 2, 3, 4].map((a) => retryDelayMs([60, 120, 300, 1800], a)),
    [60_000, 120_000, 300_000, 1_800_000],
  )
  assert.deepEqual(
    [1, 2, 3, 4].map((a) => retryDelayMs([0.05], a)),
    [50, 50, 50, 50],
  )
})

test('deliveryHeaders: fixed headers, signatures, static headers, and auth winning case-insensitively', () => {
  const h = deliveryHeaders({
    event: 'card.created',
    deliveryId: 'd1',
    body: '{}',
    secret: 's',
    previousSecret: 'old',
    nowSeconds: 1_700_000_000.7,
    userAgent: 'taskd-webhooks/1.0.0',
    auth: { Authorization: 'Bearer a' },
    static: { authorization: 'static', 'X-Team': 'ops', 'Content-Type': 'text/plain', 'Webhook-Id': 'mine', 'webhook-signature': 'v1,forged' },
  })
  assert.equal(h.Authorization, 'Bearer a')
  // Standard Webhooks beside taskd's own signature headers: the delivery id, the time, and a signature per secret, the new one first.
  const std = (key: string) => 'v1,' + createHmac('sha256', key).update('d1.1700000000.{}').digest('base64')
  assert.deepEqual([h['webhook-id'], h['webhook-timestamp'], h['webhook-signature']], ['d1', '1700000000', `${std('s')} ${std('old')}`])
  assert.equal(h['Webhook-Id'], undefined, 'a static header cannot take a Standard Webhooks name')
  assert.equal(h['X-Service-Signature'], 'sha256=' + createHmac('sha256', 's').update('{}').digest('hex'), 'X-Service-Signature: the new secret only')
  for (const name of ['webhook-id', 'Webhook-Timestamp', 'WEBHOOK-SIGNATURE']) assert.match(headerNameProblem(name) ?? '', /set by taskd/, name)
  const unsigned = deliveryHeaders({
    event: 'e',
    deliveryId: 'd2',
    body: '{}',
    secret: null,
    previousSecret: null,
    nowSeconds: 1,
    userAgent: 'u',
    auth: {},
    static: {},
  })
  assert.equal(unsigned['webhook-signature'], undefined, 'no secret, no signature headers at all')
  assert.equal(unsigned['webhook-id'], undefined)
  assert.equal(h.authorization, undefined, 'never sent twice under two spellings')
  assert.equal(h['X-Team'], 'ops')
  assert.equal(h['Content-Type'], 'application/json', 'a forbidden static header is ignored even if it slipped into storage')
  assert.match(h['X-Service-Signature'], /^sha256=[0-9a-f]{64}$/)
  assert.match(h['X-Webhook-Signature'], /^[0-9a-f]{64}$/)
  assert.equal(h['X-Webhook-Delivery'], 'd1')
})

test("headerNameProblem refuses framing, hop-by-hop and taskd's own headers", () => {
  for (const bad of [
    'Host',
    'content-length',
    'Transfer-Encoding',
    'Connection',
    'X-Webhook-Delivery',
    'User-Agent',
    'X-Webhook-Whatever',
    'bad name',
    'x:y',
    '',
  ]) {
    assert.ok(headerNameProblem(bad), bad)
  }
  for (const good of ['Authorization', 'X-Api-Key', 'X-Webhooks-Team']) assert.equal(headerNameProblem(good), undefined, good)
})

test('redactEchoes: whole echoes go, a cut excerpt always loses its tail, and what is shown never depends on a partial guess', async () => {
  const { redactEchoes } = await import('../../src/delivery/redact.js')
  const { RESPONSE_EXCERPT_BYTES } = await import('../../src/delivery/send.js')
  const token = 'tok/en-12345'
  assert.equal(redactEchoes(`a ${token} b`, [token], RESPONSE_EXCERPT_BYTES), 'a [redacted] b')
  assert.equal(redactEchoes(`{"x":"tok\\/en-12345"}`, [token], RESPONSE_EXCERPT_BYTES), '{"x":"[redacted]"}', 'as a JSON encoder may escape it')
  // Not cut: a text that merely starts like the token is shown as it is (no oracle for guesses).
  assert.equal(redactEchoes('ends with tok/en', [token], RESPONSE_EXCERPT_BYTES), 'ends with tok/en')
  // Cut at the size limit: the tail goes whatever it holds, a guess or not.
  const filler = 'x'.repeat(RESPONSE_EXCERPT_BYTES - 7)
  const withGuess = redactEchoes(`${filler}tok/en-`, [token], RESPONSE_EXCERPT_BYTES)
  const withoutGuess = redactEchoes(`${filler}abcdefg`, [token], RESPONSE_EXCERPT_BYTES)
  assert.equal(withGuess, withoutGuess)
  assert.ok(!withGuess.includes('tok/'))
  // Spellings that overlap (runs of backslashes, percent signs) never make the matching blow up: a value full of them
  // against an answer full of them ends (a regular expression that backtracked would not, within the test's timeout).
  const awkward = '\\%&'.repeat(8) + 'x'
  const answer = '\\'.repeat(30_000) + '%25'.repeat(5_000)
  assert.ok(redactEchoes(answer, [awkward, 'a\\b%c'], RESPONSE_EXCERPT_BYTES).length > 0)
  assert.equal(redactEchoes(`x${awkward}y`, [awkward], 1_000_000), 'x[redacted]y')
})
