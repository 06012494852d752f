// Kickoff delivery end to end: a fake runner on 127.0.0.1 (its V2 signature checked with node:crypto, not taskd's
// code), the retry schedule with exact attempt counts on the injected clock, expiry, the claim long poll, and a fake
// OpenAI-compatible endpoint for the service AI turn. The dispatcher is driven by hand at the fake clock's time.
import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import net, { type AddressInfo } from 'node:net'
import { test } from 'node:test'
import { agentApp, fakeAi, SECRET } from '../helpers/agents.js'
import type { Hit } from '../webhooks/fixtures.js'

const MIN = 60_000

/** The receiver's check of a signed call, written from the spec (HMAC-SHA256 of "<timestamp>.<raw body>"). */
function signedBy(secret: string, hit: Hit): boolean {
  const ts = hit.headers['x-webhook-timestamp'] as string
  const expected = createHmac('sha256', secret).update(`${ts}.${hit.body}`).digest()
  const given = Buffer.from(String(hit.headers['x-webhook-signature-v2']), 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  await new Promise((r) => server.close(r))
  return port
}

test('auto_start: the runner gets the kickoff at once, V2-signed, with the kickoff, run and card; the kickoff is delivered once', async () => {
  const c = await agentApp()
  try {
    const robo = await c.agent('Robo', { wake_url: `${c.receiver.url}/ok`, signing_secret: c.secret.id, powers: ['auto_start'] })
    const card = await c.card('Write the launch post', { description: 'About the release' })
    const k = await c.kickoff({ card: card.id, agent: robo.id, message: 'Please draft it', model: 'gpt-x', effort: 'high' })
    assert.equal(k.status, 'pending')
    assert.deepEqual(k.agent, { id: robo.id, name: 'Robo' })
    assert.equal((await c.getRun(k.run)).status, 'pending')
    assert.equal(c.receiver.hits.length, 0, 'nothing is sent inside the request')
    await c.dispatcher.runOnce()
    assert.equal(c.receiver.hits.length, 1)
    const hit = c.receiver.hits[0]
    assert.ok(signedBy(SECRET, hit), 'the V2 signature verifies with the secret')
    assert.ok(!signedBy('another-secret-entirely', hit), 'and not with another')
    assert.equal(Number(hit.headers['x-webhook-timestamp']), Math.floor(c.t.clock.now() / 1000))
    assert.equal(hit.headers['x-kickoff-id'], k.id)
    assert.equal(hit.headers['content-type'], 'application/json')
    assert.equal(hit.json.kickoff.id, k.id)
    assert.equal(hit.json.run, k.run)
    assert.deepEqual(hit.json.card, {
      id: card.id,
      key: card.key,
      title: 'Write the launch post',
      url: `http://taskd.test/v1/cards/${card.id}`,
      description: 'About the release',
    })
    assert.deepEqual([hit.json.message, hit.json.model, hit.json.effort], ['Please draft it', 'gpt-x', 'high'])
    const after = await c.getKickoff(k.id)
    assert.deepEqual([after.status, after.via, after.attempts, after.next_attempt_at], ['delivered', 'auto_start', 1, null])
    assert.equal((await c.events('agent.kickoff_delivered')).length, 1)
    c.t.clock.advance(60 * MIN)
    await c.dispatcher.runOnce()
    assert.equal(c.receiver.hits.length, 1, 'a delivered kickoff is never sent again')
  } finally {
    await c.close()
  }
})

test('a runner answering 500, hanging or refusing leaves the kickoff queued, with why', async () => {
  const c = await agentApp()
  try {
    const port = await closedPort()
    const cases = [
      [`${c.receiver.url}/status/500`, /answered 500/],
      [`${c.receiver.url}/hang`, /timed out/],
      [`http://127.0.0.1:${port}/wake`, /ECONNREFUSED/],
    ] as const
    for (const [url, why] of cases) {
      const robo = await c.agent(`Robo ${url}`, { wake_url: url, powers: ['auto_start'] })
      const k = await c.kickoff({ card: (await c.card()).id, agent: robo.id })
      await c.dispatcher.runOnce()
      const after = await c.getKickoff(k.id)
      assert.deepEqual([after.status, after.attempts, after.via], ['queued', 1, null], url)
      assert.match(after.last_error, why)
      assert.equal(after.next_attempt_at, new Date(c.t.clock.now() + MIN).toISOString(), 'the first retry comes after 60 s')
    }
    assert.equal((await c.events('agent.kickoff_delivered')).length, 0)
  } finally {
    await c.close()
  }
})

test('retries follow 60 s, 2 min, 5 min, 30 min until the kickoff expires: exact attempts, then agent.kickoff_expired and the run fails', async () => {
  const c = await agentApp()
  try {
    const robo = await c.agent('Robo', { wake_url: `${c.receiver.url}/status/503`, powers: ['auto_start'] })
    const t0 = c.t.clock.now()
    const k = await c.kickoff({ card: (await c.card()).id, agent: robo.id, expires_in_minutes: 60 })
    assert.equal(k.expires_at, new Date(t0 + 60 * MIN).toISOString())
    const attempts = async () => (await c.getKickoff(k.id)).attempts
    await c.dispatcher.runOnce()
    assert.equal(c.receiver.hits.length, 1)
    // Just before each retry is due nothing is sent; at its time exactly one attempt is.
    for (const [wait, total] of [
      [1, 2],
      [2, 3],
      [5, 4],
      [30, 5],
    ] as const) {
      c.t.clock.advance(wait * MIN - 1)
      await c.dispatcher.runOnce()
      assert.equal(c.receiver.hits.length, total - 1, `not before ${wait} min`)
      c.t.clock.advance(1)
      await c.dispatcher.runOnce()
      assert.equal(c.receiver.hits.length, total, `after ${wait} min`)
      assert.equal(await attempts(), total)
    }
    // 38 minutes have passed: the next retry would come after the expiry, so the kickoff is due at expiry instead.
    assert.equal((await c.getKickoff(k.id)).next_attempt_at, new Date(t0 + 60 * MIN).toISOString())
    c.t.clock.advance(22 * MIN)
    await c.dispatcher.runOnce()
    assert.equal(c.receiver.hits.length, 5, 'an expired kickoff is not sent')
    const after = await c.getKickoff(k.id)
    assert.deepEqual([after.status, after.attempts, after.next_attempt_at], ['expired', 5, null])
    const run = await c.getRun(k.run)
    assert.equal(run.status, 'failed')
    assert.match(run.error, /expired/)
    const evs = await c.events('agent.')
    assert.deepEqual(
      evs.map((e) => e.name),
      ['agent.kickoff_expired', 'agent.failed'],
    )
    assert.equal(evs[0].data.kickoff_id, k.id)
    assert.deepEqual(evs[0].data.agent, { id: robo.id, name: 'Robo' })
    assert.deepEqual(evs[1].data.run, { id: k.run, status: 'failed' })
    c.t.clock.advance(600 * MIN)
    await c.dispatcher.runOnce()
    assert.equal(c.receiver.hits.length, 5)
  } finally {
    await c.close()
  }
})

test('local_access: a waiting claim gets a new kickoff at once; nothing to claim answers 204; only agents and their owners claim', async () => {
  const c = await agentApp()
  try {
    const desk = await c.agent('Desk', { powers: ['local_access'] })
    const card = await c.card()
    const claim = (token: string, wait_seconds: number) => c.t.req('POST', '/v1/agent-kickoffs/claim', { token, body: { wait_seconds } })
    const nothing = await claim(c.tokens.member.write, 0)
    assert.equal(nothing.status, 204)
    assert.equal((await claim(c.tokens.admin.write, 0)).status, 403, 'an admin who owns no agent')
    const waiting = claim(c.tokens.member.write, 30)
    while (!c.t.deps.claimWaiters.has(desk.id)) await new Promise((r) => setImmediate(r))
    const k = await c.kickoff({ card: card.id, agent: desk.id, model: 'opus', effort: 'max' })
    assert.equal(c.t.deps.claimWaiters.has(desk.id), false, 'the kickoff woke the claim, which no longer waits for the end of its wait')
    const got = await waiting
    assert.equal(got.status, 200, got.text)
    assert.equal(got.body.kickoff.id, k.id)
    assert.deepEqual(
      [got.body.kickoff.status, got.body.kickoff.via, got.body.kickoff.model, got.body.kickoff.effort],
      ['delivered', 'local_access', 'opus', 'max'],
    )
    assert.equal(got.body.card.id, card.id)
    await c.dispatcher.runOnce()
    assert.equal((await c.getKickoff(k.id)).status, 'delivered', 'the dispatcher leaves a claimed kickoff alone')
    assert.equal((await claim(desk.token, 0)).status, 204, 'claimed once only')
    // The agent's own token claims too; the dispatcher, finding no app waiting, queues the kickoff meanwhile.
    const k2 = await c.kickoff({ card: card.id, agent: desk.id })
    await c.dispatcher.runOnce()
    assert.equal((await c.getKickoff(k2.id)).status, 'queued')
    const mine = await claim(desk.token, 0)
    assert.equal(mine.status, 200)
    assert.equal(mine.body.kickoff.id, k2.id)
  } finally {
    await c.close()
  }
})

test('auto_start first, then local_access: a claim takes the kickoff only after the runner could not be reached', async () => {
  const c = await agentApp()
  try {
    const both = await c.agent('Both', { wake_url: `${c.receiver.url}/status/500`, powers: ['auto_start', 'local_access'] })
    const k = await c.kickoff({ card: (await c.card()).id, agent: both.id })
    const claim = () => c.t.req('POST', '/v1/agent-kickoffs/claim', { token: c.tokens.member.write, body: {} })
    assert.equal((await claim()).status, 204, 'before the auto_start attempt')
    await c.dispatcher.runOnce()
    assert.equal(c.receiver.hits.length, 1)
    const got = await claim()
    assert.equal(got.status, 200)
    assert.equal(got.body.kickoff.id, k.id)
    assert.equal(got.body.kickoff.via, 'local_access')
  } finally {
    await c.close()
  }
})

test('service_ai: one chat-completions turn with the card as context; the reply is the agent’s comment and its done proposal', async () => {
  const ai = await fakeAi({ status: 200, reply: 'Drafted the post:\n\n# Launch\nIt ships today.' })
  const c = await agentApp({ aiUrl: ai.url, aiKey: 'sk-test-key', aiModel: 'test-model' })
  try {
    const writer = await c.agent('Writer', { powers: ['service_ai'] })
    const card = await c.card('Write the launch post', { description: 'Three paragraphs' })
    await c.t.req('POST', '/v1/checklists', { token: c.tokens.member.write, body: { card: card.id, title: 'Parts', items: ['Intro', 'Pricing'] } })
    await c.t.req('POST', '/v1/comments', { token: c.tokens.member.write, body: { card: card.id, body: 'Mention the discount' } })
    const k = await c.kickoff({ card: card.id, agent: writer.id, message: 'Keep it short' })
    await c.dispatcher.runOnce()
    assert.equal(ai.requests.length, 1)
    const call = ai.requests[0]
    assert.equal(call.path, '/v1/chat/completions')
    assert.equal(call.auth, 'Bearer sk-test-key')
    assert.equal(call.body.model, 'test-model')
    const prompt = call.body.messages.map((m: { content: string }) => m.content).join('\n')
    for (const part of ['Write the launch post', 'Three paragraphs', 'Intro', 'Pricing', 'Mention the discount', 'Keep it short', 'Writer'])
      assert.ok(prompt.includes(part), `the context holds ${part}`)
    const after = await c.getKickoff(k.id)
    assert.deepEqual([after.status, after.via], ['delivered', 'service_ai'])
    const run = await c.getRun(k.run)
    assert.equal(run.status, 'done_proposed')
    assert.equal(run.summary, 'Drafted the post:\n\n# Launch\nIt ships today.')
    const comments = (await c.t.req('GET', `/v1/comments?card=${card.id}`, { token: c.tokens.member.read })).body.items
    const byAgent = comments.find((x: { author: { id: string } }) => x.author.id === writer.id)
    assert.deepEqual(byAgent.author, { id: writer.id, name: 'Writer', kind: 'agent' })
    assert.equal(byAgent.body, 'Drafted the post:\n\n# Launch\nIt ships today.')
    assert.deepEqual(
      (await c.events('agent.')).map((e) => e.name),
      ['agent.kickoff_delivered', 'agent.done_proposed'],
    )
    // An endpoint that fails leaves the kickoff queued.
    ai.answer.status = 500
    const k2 = await c.kickoff({ card: card.id, agent: writer.id })
    await c.dispatcher.runOnce()
    const queued = await c.getKickoff(k2.id)
    assert.equal(queued.status, 'queued')
    assert.match(queued.last_error, /service_ai: the AI endpoint answered 500/)
  } finally {
    await c.close()
    await ai.close()
  }
})

test('kickoffs are refused with a clear error: a non-member agent, a human, powers the agent lacks or cannot use, no workflow', async () => {
  const c = await agentApp()
  try {
    const robo = await c.agent('Robo', { wake_url: `${c.receiver.url}/ok`, powers: ['auto_start'] })
    const outside = await c.agent('Outside', { powers: ['local_access'] }, false)
    const ai = await c.agent('Thinker', { powers: ['service_ai'] })
    const card = await c.card()
    const refused = async (body: Record<string, unknown>, status: number, field?: string, token = c.tokens.member.write) => {
      const r = await c.t.req('POST', '/v1/agent-kickoffs', { token, body })
      assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.text}`)
      if (field)
        assert.deepEqual(
          r.body.error.details.map((d: { path: string }) => d.path),
          [field],
          r.text,
        )
      return r
    }
    const r = await refused({ card: card.id, agent: outside.id }, 422, 'agent')
    assert.match(r.body.error.message, /not a member of the card's board/)
    await refused({ card: card.id, agent: c.member.id }, 422, 'agent')
    await refused({ card: card.id, agent: 'nope' }, 422, 'agent')
    await refused({ card: card.id, agent: robo.id, powers: ['local_access'] }, 422, 'powers')
    await refused({ card: card.id, agent: ai.id }, 422, 'powers') // TASKD_AI_URL is not set here
    await refused({ card: card.id }, 422, 'workflow')
    await refused({ card: card.id, agent: robo.id, powers: ['auto_start', 'auto_start'] }, 422, 'powers')
    await refused({ card: card.id, agent: robo.id, effort: 'extreme' }, 422, 'effort')
    await refused({ card: card.id, agent: robo.id, expires_in_minutes: 10_081 }, 422, 'expires_in_minutes')
    await refused({ card: card.id, agent: robo.id, extra: 1 }, 422, 'extra')
    await refused({ card: 'nope', agent: robo.id }, 404)
    await refused({ card: card.id, agent: robo.id }, 404, undefined, c.tokens.outsider.write)
    await refused({ card: card.id, agent: robo.id }, 403, undefined, c.tokens.member.read)
    assert.equal((await c.t.req('GET', '/v1/agent-kickoffs', { token: c.tokens.member.read })).body.totalItems, 0, 'nothing was stored')
    assert.equal((await c.t.req('GET', '/v1/agent-runs', { token: c.tokens.member.read })).body.totalItems, 0)
  } finally {
    await c.close()
  }
})

test('a pending kickoff can be cancelled by a person (its run too), not by an agent, and not once delivered', async () => {
  const c = await agentApp()
  try {
    const robo = await c.agent('Robo', { wake_url: `${c.receiver.url}/status/500`, powers: ['auto_start'] })
    const k = await c.kickoff({ card: (await c.card()).id, agent: robo.id })
    assert.equal((await c.t.req('POST', `/v1/agent-kickoffs/${k.id}/cancel`, { token: robo.token })).status, 403)
    const r = await c.t.req('POST', `/v1/agent-kickoffs/${k.id}/cancel`, { token: c.tokens.member.write })
    assert.equal(r.status, 200, r.text)
    assert.equal(r.body.kickoff.status, 'cancelled')
    assert.equal((await c.getRun(k.run)).status, 'cancelled')
    await c.dispatcher.runOnce()
    assert.equal(c.receiver.hits.length, 0, 'a cancelled kickoff is never sent')
    assert.equal((await c.t.req('POST', `/v1/agent-kickoffs/${k.id}/cancel`, { token: c.tokens.member.write })).status, 409)
    assert.deepEqual(
      (await c.events('agent.')).map((e) => e.name),
      ['agent.cancelled'],
    )
  } finally {
    await c.close()
  }
})
