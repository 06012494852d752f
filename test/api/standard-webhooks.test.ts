// Standard Webhooks headers and secret rotation, on one fixture: every signed delivery, kickoff call and http_request
// step carries webhook-id, webhook-timestamp and webhook-signature beside taskd's own signature headers, each verified with the
// standardwebhooks package (run at taskd's fake time) and with node:crypto written here from the specification; a
// rotation of a webhook secret or a signing secret signs with both secrets during the overlap (`v1,<new> v1,<old>`)
// while the single-value signature headers use the new one at once, and with the new one only after it (the housekeeping pass
// then forgets the old one); the rotate routes' answers, refusals and (lack of) events.
import assert from 'node:assert/strict'
import { createHash, createHmac } from 'node:crypto'
import { after, mock, test } from 'node:test'
import { verify as verifyServiceSignature } from '@octokit/webhooks-methods'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { OutboxScheduler } from '../../src/delivery/scheduler.js'
import { Housekeeping } from '../../src/housekeeping.js'
import { AutomationRunner } from '../../src/resources/automations/runner.js'
import { agentApp, SECRET } from '../helpers/agents.js'
import { dbGet } from '../helpers/db.js'
import { assertErrorShape } from '../helpers/scenarios.js'
import type { Hit } from '../webhooks/fixtures.js'

const HOUR = 3_600_000

async function fixture() {
  const c = await agentApp()
  const log = (m: string, e?: unknown) => process.env.DEBUG_TASKD && console.error(m, e)
  const scheduler = new OutboxScheduler(c.t.deps, { log })
  const runner = new AutomationRunner(c.t.deps, { log })
  const close = async () => {
    await scheduler.stop(1000)
    await runner.stop(1000)
    await c.close()
  }
  try {
    const robo = await c.agent('Robo', { wake_url: `${c.receiver.url}/ok?runner`, signing_secret: c.secret.id, powers: ['auto_start'] })
    return { ...c, scheduler, runner, robo, close }
  } catch (err) {
    await close()
    throw err
  }
}
const ready = fixture()
after(async () => (await ready).close())
type C = Awaited<typeof ready>

/** The hits a step of a test caused: those after `from`. */
const hitsSince = (c: C, from: number) => c.receiver.hits.slice(from)

/** The Standard Webhooks headers of a hit, as a receiver hands them to a library. */
const standardHeadersOf = (hit: Hit) => ({
  'webhook-id': String(hit.headers['webhook-id']),
  'webhook-timestamp': String(hit.headers['webhook-timestamp']),
  'webhook-signature': String(hit.headers['webhook-signature']),
})

/**
 * The official library's check, at taskd's fake time (it compares webhook-timestamp with Date.now()): `format: "raw"`
 * takes the secret's bytes; a string key is taken a character per byte, so a secret beyond ASCII is given as UTF-8 bytes.
 */
function libraryVerifies(secret: string | Uint8Array, hit: Hit, at: number): boolean {
  mock.timers.enable({ apis: ['Date'], now: at })
  try {
    new Webhook(secret, { format: 'raw' }).verify(hit.body, standardHeadersOf(hit))
    return true
  } catch (err) {
    if (err instanceof WebhookVerificationError) return false
    throw err
  } finally {
    mock.timers.reset()
  }
}

/** The `v1` signatures of webhook-signature, in order. */
const signaturesOf = (hit: Hit): string[] =>
  String(hit.headers['webhook-signature'] ?? '')
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => s.slice(3))

/** node:crypto, from the specification: base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>" keyed with the secret's UTF-8 bytes. */
const standardSignature = (secret: string, hit: Hit): string =>
  createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${String(hit.headers['webhook-id'])}.${String(hit.headers['webhook-timestamp'])}.${hit.body}`)
    .digest('base64')

/** The X-… signature headers of a delivery, made with `secret`: X-Service-Signature (an independent verifier) and the legacy one. */
const specSignedWith = async (secret: string, hit: Hit) =>
  (await verifyServiceSignature(secret, hit.body, String(hit.headers['x-service-signature']))) &&
  hit.headers['x-webhook-signature'] === createHash('sha256').update(hit.body).update(secret).digest('hex')

/** The V2 header of signed calls, made with `secret`. */
const v2SignedWith = (secret: string, hit: Hit) =>
  hit.headers['x-webhook-signature-v2'] ===
  createHmac('sha256', secret)
    .update(`${String(hit.headers['x-webhook-timestamp'])}.${hit.body}`)
    .digest('hex')

/** Every check of one hit: its Standard Webhooks signatures are exactly those of `secrets` (the new first), each verifying with the library. */
function assertStandardSigned(c: C, hit: Hit, secrets: readonly string[], id: string): void {
  assert.equal(hit.headers['webhook-id'], id)
  assert.equal(hit.headers['webhook-timestamp'], String(Math.floor(c.t.clock.now() / 1000)))
  assert.deepEqual(
    signaturesOf(hit),
    secrets.map((s) => standardSignature(s, hit)),
    'one v1 signature per secret, the new one first',
  )
  // As the docs say: the secret as it is when it is ASCII (every secret taskd generates), else its UTF-8 bytes.
  const key = (s: string) => (/^[\x00-\x7f]*$/.test(s) ? s : new TextEncoder().encode(s))
  for (const s of secrets) assert.ok(libraryVerifies(key(s), hit, c.t.clock.now()), `the standardwebhooks package verifies it with ${s}`)
  assert.ok(!libraryVerifies('some-other-secret-0123456789', hit, c.t.clock.now()), 'and not with another secret')
}

const eventCount = async (c: C) => Number((await dbGet<{ n: number }>(c.t.deps.db, "SELECT count(*) AS n FROM events WHERE name <> 'audit.entry'"))!.n)
const auditedCount = async (c: C, action: string) =>
  Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM audit_log WHERE action = ?', action))!.n)

/** Sends a webhook.test delivery through the subscription and returns what the receiver got. */
async function testDelivery(c: C, id: string): Promise<Hit> {
  const from = c.receiver.hits.length
  const r = await c.t.req('POST', `/v1/webhooks/${id}/test`, { token: c.tokens.owner.write })
  assert.equal(r.status, 202, r.text)
  assert.equal(await c.scheduler.runOnce(), 1)
  const [hit, ...more] = hitsSince(c, from)
  assert.equal(more.length, 0)
  assert.equal(hit.json.id, r.body.delivery_id)
  return hit
}

test('every signed delivery carries the Standard Webhooks headers beside taskd’s own: verified with the standardwebhooks package and node:crypto', async () => {
  const c = await ready
  const secret = 'std-hooks-secret-0123456789'
  const sub = (
    await c.t.req('POST', '/v1/webhooks', {
      token: c.tokens.owner.write,
      body: { name: 'std', url: `${c.receiver.url}/ok?std`, events: ['card.created'], boards: [c.board.id], secret },
    })
  ).body.webhook
  assert.equal(sub.secret_rotating_until, null)
  const from = c.receiver.hits.length
  await c.t.req('POST', '/v1/cards', { token: c.tokens.owner.write, body: { board: c.board.id, title: 'Standard' } })
  assert.equal((await c.t.req('POST', `/v1/webhooks/${sub.id}/test`, { token: c.tokens.owner.write })).status, 202)
  assert.equal(await c.scheduler.runOnce(), 2)
  const hits = hitsSince(c, from).filter((h) => h.path.endsWith('?std'))
  assert.deepEqual(hits.map((h) => h.json.event).sort(), ['card.created', 'webhook.test'])
  for (const hit of hits) {
    // The id is the delivery's (the body's id, X-Webhook-Delivery), the time the attempt's; the X-… headers are unchanged.
    assert.equal(hit.headers['x-webhook-delivery'], hit.json.id)
    assertStandardSigned(c, hit, [secret], hit.json.id)
    assert.ok(await specSignedWith(secret, hit))
  }

  // A secret beyond ASCII: the key is its UTF-8 bytes, which the library takes as bytes (a string would be read a
  // character per byte).
  const wide = 'clé-secrète-✓-0123456789'
  const wideSub = (await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: c.tokens.owner.write, body: { secret: wide } })).body.webhook
  assert.equal(wideSub.has_secret, true)
  const hit = await testDelivery(c, sub.id)
  assertStandardSigned(c, hit, [wide], hit.json.id)
  assert.ok(!libraryVerifies(wide, hit, c.t.clock.now()), 'given as a string, the library reads other bytes')

  // No secret, no signature: none of the three headers.
  await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: c.tokens.owner.write, body: { secret: null } })
  const unsigned = await testDelivery(c, sub.id)
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-service-signature']) assert.equal(unsigned.headers[name], undefined, name)
  // The names are taskd's: a subscription cannot set them as static headers.
  const refused = await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: c.tokens.owner.write, body: { headers: { 'Webhook-Signature': 'v1,forged' } } })
  assert.equal(refused.status, 422, refused.text)
  assert.equal(refused.body.error.details[0].path, 'headers.Webhook-Signature')
  await c.t.req('DELETE', `/v1/webhooks/${sub.id}`, { token: c.tokens.owner.write })
})

test('a webhook secret rotated: both signatures during the overlap (X-Service-Signature new at once), the new one only after it; refusals; nothing emitted', async () => {
  const c = await ready
  const made = await c.t.req('POST', '/v1/webhooks', {
    token: c.tokens.owner.write,
    body: { name: 'rotating', url: `${c.receiver.url}/ok?rot`, events: ['card.created'], boards: [c.board.id], generate_secret: true },
  })
  const sub = made.body.webhook
  const first: string = made.body.secret
  const before = await eventCount(c)
  const start = c.t.clock.now()
  const rotated = await c.t.req('POST', `/v1/webhooks/${sub.id}/rotate-secret`, { token: c.tokens.owner.write, body: {} })
  assert.equal(rotated.status, 200, rotated.text)
  assert.equal(rotated.headers.get('cache-control'), 'no-store')
  const second: string = rotated.body.secret
  assert.match(second, /^whsec_[A-Za-z0-9_-]{43}$/)
  assert.notEqual(second, first)
  const until = new Date(start + 24 * HOUR).toISOString()
  assert.deepEqual([rotated.body.webhook.id, rotated.body.webhook.has_secret, rotated.body.webhook.secret_rotating_until], [sub.id, true, until])
  assert.equal((await c.t.req('GET', `/v1/webhooks/${sub.id}`, { token: c.tokens.owner.read })).body.webhook.secret_rotating_until, until)
  assert.equal(await eventCount(c), before, 'a rotation emits nothing but its audit entry, as no edit of a subscription does')
  assert.ok((await auditedCount(c, 'webhook.secret_rotated')) >= 1, 'the rotation is in the audit log')
  for (const text of [
    (await c.t.req('GET', `/v1/webhooks/${sub.id}`, { token: c.tokens.owner.read })).text,
    (await c.t.req('GET', '/v1/webhooks', { token: c.tokens.owner.read })).text,
  ])
    assert.ok(!text.includes(second) && !text.includes(first), 'the secrets are never shown again')

  // During the overlap: X-Service-Signature and X-Webhook-Signature with the new secret only; webhook-signature `v1,<new> v1,<old>`, each verifying.
  let hit = await testDelivery(c, sub.id)
  assert.ok(await specSignedWith(second, hit))
  assert.ok(!(await specSignedWith(first, hit)))
  assertStandardSigned(c, hit, [second, first], hit.json.id)
  c.t.clock.advance(24 * HOUR - 1000)
  hit = await testDelivery(c, sub.id)
  assertStandardSigned(c, hit, [second, first], hit.json.id)

  // After it: the new secret only, the record says so at once, and the housekeeping pass forgets the old one.
  c.t.clock.advance(1000)
  hit = await testDelivery(c, sub.id)
  assertStandardSigned(c, hit, [second], hit.json.id)
  assert.ok(!libraryVerifies(first, hit, c.t.clock.now()), 'the old secret no longer verifies')
  assert.equal((await c.t.req('GET', `/v1/webhooks/${sub.id}`, { token: c.tokens.owner.read })).body.webhook.secret_rotating_until, null)
  const stored = () =>
    dbGet<{ p: string | null; u: string | null }>(c.t.deps.db, 'SELECT previous_secret_enc AS p, previous_secret_until AS u FROM webhooks WHERE id = ?', sub.id)
  assert.notEqual((await stored())!.p, null, 'kept until the housekeeping pass')
  await new Housekeeping(c.t.deps, () => {}).runOnce()
  assert.deepEqual(await stored(), { p: null, u: null })

  // overlap_hours 0: the old secret stops at once.
  const third: string = (await c.t.req('POST', `/v1/webhooks/${sub.id}/rotate-secret`, { token: c.tokens.owner.write, body: { overlap_hours: 0 } })).body.secret
  hit = await testDelivery(c, sub.id)
  assertStandardSigned(c, hit, [third], hit.json.id)
  // A rotation during an overlap ends it: only the secret it replaces still signs.
  const fourth: string = (await c.t.req('POST', `/v1/webhooks/${sub.id}/rotate-secret`, { token: c.tokens.admin.write, body: { overlap_hours: 1 } })).body
    .secret
  const again = await c.t.req('POST', `/v1/webhooks/${sub.id}/rotate-secret`, { token: c.tokens.owner.write, body: { overlap_hours: 168 } })
  assert.equal(again.body.webhook.secret_rotating_until, new Date(c.t.clock.now() + 168 * HOUR).toISOString())
  const fifth: string = again.body.secret
  hit = await testDelivery(c, sub.id)
  assertStandardSigned(c, hit, [fifth, fourth], hit.json.id)
  assert.ok(await specSignedWith(fifth, hit))
  // A secret set by PATCH replaces the stored one at once and ends the overlap too.
  const patched = await c.t.req('PATCH', `/v1/webhooks/${sub.id}`, { token: c.tokens.owner.write, body: { secret: 'patched-secret-0123456789' } })
  assert.equal(patched.body.webhook.secret_rotating_until, null)
  hit = await testDelivery(c, sub.id)
  assertStandardSigned(c, hit, ['patched-secret-0123456789'], hit.json.id)

  // Refusals: the documented error shape, never a 500; nothing changes.
  const unsigned = (
    await c.t.req('POST', '/v1/webhooks', {
      token: c.tokens.owner.write,
      body: { name: 'unsigned', url: `${c.receiver.url}/ok`, events: ['card.created'], boards: [c.board.id] },
    })
  ).body.webhook
  const path = `/v1/webhooks/${sub.id}/rotate-secret`
  const rows: [string, string, string, unknown, number, string?][] = [
    ['a member on the owner’s subscription', c.tokens.member.write, path, {}, 404],
    ['a read token', c.tokens.owner.read, path, {}, 403],
    ['an unknown subscription', c.tokens.owner.write, '/v1/webhooks/nope/rotate-secret', {}, 404],
    ['a subscription without a secret', c.tokens.owner.write, `/v1/webhooks/${unsigned.id}/rotate-secret`, {}, 409],
    ['more than a week', c.tokens.owner.write, path, { overlap_hours: 169 }, 422, 'overlap_hours'],
    ['a negative overlap', c.tokens.owner.write, path, { overlap_hours: -1 }, 422, 'overlap_hours'],
    ['a fraction of an hour', c.tokens.owner.write, path, { overlap_hours: 1.5 }, 422, 'overlap_hours'],
    ['hours as text', c.tokens.owner.write, path, { overlap_hours: '24' }, 422, 'overlap_hours'],
    ['a secret of one’s choosing', c.tokens.owner.write, path, { secret: 'mine-0123456789abcdef' }, 422, 'secret'],
  ]
  for (const [name, token, url, body, status, field] of rows) {
    const r = await c.t.req('POST', url, { token, body })
    assert.equal(r.status, status, `${name}: ${r.text}`)
    assertErrorShape(r.body)
    if (field)
      assert.ok(
        r.body.error.details.some((d: { path: string }) => d.path === field),
        `${name}: ${r.text}`,
      )
  }
  const malformed = await c.t.req('POST', path, { token: c.tokens.owner.write, raw: '{"overlap_hours":', headers: { 'content-type': 'application/json' } })
  assert.equal(malformed.status, 400)
  hit = await testDelivery(c, sub.id)
  assertStandardSigned(c, hit, ['patched-secret-0123456789'], hit.json.id)
  for (const id of [sub.id, unsigned.id]) await c.t.req('DELETE', `/v1/webhooks/${id}`, { token: c.tokens.owner.write })
})

test('a signing secret rotated: kickoff calls and http_request steps carry both signatures during the overlap, V2 new at once, the new one only after it', async () => {
  const c = await ready
  const auto = await c.t.req('POST', '/v1/automations', {
    token: c.tokens.admin.write,
    body: {
      name: 'call out',
      board: c.board.id,
      trigger: { type: 'event', events: ['card.created'] },
      steps: [{ type: 'http_request', method: 'POST', url: `${c.receiver.url}/ok?step`, body: '{"card": "{event.data.id}"}', signing_secret: c.secret.id }],
    },
  })
  assert.equal(auto.status, 201, auto.text)
  /** A kickoff to Robo and a card.created that runs the automation's step; both calls as the receiver got them. */
  const calls = async () => {
    const from = c.receiver.hits.length
    const card = await c.card('Signed calls')
    const k = await c.kickoff({ card: card.id, agent: c.robo.id })
    await c.dispatcher.runOnce()
    await c.runner.runOnce()
    const hits = hitsSince(c, from)
    const kickoff = hits.find((h) => h.path.endsWith('?runner'))!
    const step = hits.find((h) => h.path.endsWith('?step'))!
    assert.ok(kickoff && step, JSON.stringify(hits.map((h) => h.path)))
    const [run] = (await c.t.req('GET', `/v1/automations/${auto.body.automation.id}/runs?per_page=1`, { token: c.tokens.admin.read })).body.items
    assert.equal(run.status, 'succeeded', JSON.stringify(run))
    return { kickoff, step, kickoffId: k.id as string, runId: run.id as string }
  }
  const assertCalls = async (v2: string, secrets: string[]) => {
    const { kickoff, step, kickoffId, runId } = await calls()
    for (const hit of [kickoff, step]) {
      assert.ok(v2SignedWith(v2, hit), 'X-Webhook-Signature-V2 with the current value')
      assert.equal(hit.headers['x-webhook-timestamp'], hit.headers['webhook-timestamp'], 'one timestamp for both')
    }
    // webhook-id names the message: the kickoff (as X-Kickoff-Id), the run's step.
    assert.equal(kickoff.headers['x-kickoff-id'], kickoffId)
    assertStandardSigned(c, kickoff, secrets, kickoffId)
    assertStandardSigned(c, step, secrets, `${runId}_1`)
  }
  await assertCalls(SECRET, [SECRET])

  // Rotated to a value taskd generates (answered once), overlapping 2 hours.
  const before = await eventCount(c)
  const rotated = await c.t.req('POST', `/v1/signing-secrets/${c.secret.id}/rotate`, { token: c.tokens.admin.write, body: { overlap_hours: 2 } })
  assert.equal(rotated.status, 200, rotated.text)
  assert.equal(rotated.headers.get('cache-control'), 'no-store')
  const generated: string = rotated.body.value
  assert.match(generated, /^whsec_[A-Za-z0-9_-]{43}$/)
  assert.equal(rotated.body.signing_secret.rotating_until, new Date(c.t.clock.now() + 2 * HOUR).toISOString())
  assert.equal(await eventCount(c), before, 'nothing is emitted but the audit entry')
  assert.ok((await auditedCount(c, 'signing_secret.rotated')) >= 1, 'the rotation is in the audit log')
  await assertCalls(generated, [generated, SECRET])

  // Rotated again to a value of one's own (not echoed): the overlap is now between the generated one and it.
  const own = 'own-runner-key-0123456789-abcdef'
  const mine = await c.t.req('POST', `/v1/signing-secrets/${c.secret.id}/rotate`, { token: c.tokens.owner.write, body: { value: own } })
  assert.equal(mine.status, 200, mine.text)
  assert.deepEqual(Object.keys(mine.body), ['signing_secret'])
  assert.ok(!mine.text.includes(own))
  const until = new Date(c.t.clock.now() + 24 * HOUR).toISOString()
  assert.equal(mine.body.signing_secret.rotating_until, until, '24 hours by default')
  const listed = await c.t.req('GET', '/v1/signing-secrets', { token: c.tokens.member.read })
  assert.equal(listed.body.items.find((s: { id: string }) => s.id === c.secret.id).rotating_until, until, 'members see that it rotates, never a value')
  assert.ok(!listed.text.includes(own) && !listed.text.includes(generated))
  await assertCalls(own, [own, generated])

  // After the overlap: the new value only; the housekeeping pass forgets the old one.
  c.t.clock.advance(24 * HOUR)
  await assertCalls(own, [own])
  assert.equal((await c.t.req('GET', `/v1/signing-secrets/${c.secret.id}`, { token: c.tokens.owner.read })).body.signing_secret.rotating_until, null)
  await new Housekeeping(c.t.deps, () => {}).runOnce()
  assert.deepEqual(await dbGet(c.t.deps.db, 'SELECT previous_value_enc AS p, previous_until AS u FROM signing_secrets WHERE id = ?', c.secret.id), {
    p: null,
    u: null,
  })

  // PUT replaces the value at once and ends an overlap.
  await c.t.req('POST', `/v1/signing-secrets/${c.secret.id}/rotate`, { token: c.tokens.owner.write, body: { value: SECRET, overlap_hours: 5 } })
  const put = await c.t.req('PUT', `/v1/signing-secrets/${c.secret.id}`, { token: c.tokens.owner.write, body: { value: SECRET } })
  assert.equal(put.body.signing_secret.rotating_until, null)
  await assertCalls(SECRET, [SECRET])

  // Refusals.
  const path = `/v1/signing-secrets/${c.secret.id}/rotate`
  const rows: [string, string, string, unknown, number, string?][] = [
    ['a member', c.tokens.member.write, path, {}, 403],
    ['a read token', c.tokens.owner.read, path, {}, 403],
    ['an unknown secret', c.tokens.owner.write, '/v1/signing-secrets/nope/rotate', {}, 404],
    ['a value too short', c.tokens.owner.write, path, { value: 'short' }, 422, 'value'],
    ['an empty value', c.tokens.owner.write, path, { value: '' }, 422, 'value'],
    ['more than a week', c.tokens.owner.write, path, { overlap_hours: 200 }, 422, 'overlap_hours'],
    ['a fraction of an hour', c.tokens.owner.write, path, { overlap_hours: 0.5 }, 422, 'overlap_hours'],
    ['an unknown field', c.tokens.owner.write, path, { name: 'renamed' }, 422, 'name'],
  ]
  for (const [name, token, url, body, status, field] of rows) {
    const r = await c.t.req('POST', url, { token, body })
    assert.equal(r.status, status, `${name}: ${r.text}`)
    assertErrorShape(r.body)
    if (field)
      assert.ok(
        r.body.error.details.some((d: { path: string }) => d.path === field),
        `${name}: ${r.text}`,
      )
  }
  await assertCalls(SECRET, [SECRET])
})
