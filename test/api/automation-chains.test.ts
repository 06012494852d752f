// Automations cannot start themselves again through what their runs cause: an agent's reply to a kickoff a run made,
// or a run's http_request step calling the automation's own incoming endpoint, carries the run's chain; and a cap on
// runs per minute pauses an automation that goes past it, saying why.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AutomationRunner } from '../../src/resources/automations/runner.js'
import { agentApp, fakeAi } from '../helpers/agents.js'
import { dbAll } from '../helpers/db.js'
import { until } from '../helpers/until.js'

type App = Awaited<ReturnType<typeof agentApp>>

/** Rounds of claiming due runs and kickoffs, each waited out; a loop that never ends uses up every round. */
async function settle(c: App, runner: AutomationRunner, rounds = 12): Promise<number> {
  const busy = async () =>
    (await dbAll(c.t.deps.db, "SELECT id FROM automation_runs WHERE status = 'running'")).length +
    (await dbAll(c.t.deps.db, "SELECT id FROM agent_kickoffs WHERE status IN ('pending', 'queued') AND lease_until > 0")).length
  for (let i = 0; i < rounds; i++) {
    const claimed = (await runner.pump.run()) + (await c.dispatcher.pump.run())
    if (claimed === 0) return i
    await until('the claimed runs and kickoffs to finish', async () => (await busy()) === 0)
  }
  return rounds
}

const runsOf = async (c: App, automation: string) =>
  (await c.t.req('GET', `/v1/automations/${automation}/runs`, { token: c.tokens.admin.write })).body.items as { status: string }[]

test('an automation that kicks off an AI agent on comment.added is not started again by the agent’s reply: one AI call', async () => {
  const ai = await fakeAi({ status: 200, reply: (n) => `Reply number ${n}` })
  const c = await agentApp({ aiUrl: ai.url, aiModel: 'test-model' })
  const runner = new AutomationRunner(c.t.deps, { log: () => {} })
  try {
    const helper = await c.agent('Helper', { powers: ['service_ai'] })
    const made = await c.t.req('POST', '/v1/automations', {
      token: c.tokens.admin.write,
      body: {
        name: 'Ask the helper',
        board: c.board.id,
        trigger: { type: 'event', events: ['comment.added'] },
        steps: [{ type: 'kickoff_agent', card: '{event.data.card.id}', agent: helper.id }],
      },
    })
    assert.equal(made.status, 201, made.text)
    const card = await c.card()
    assert.equal((await c.t.req('POST', '/v1/comments', { token: c.tokens.member.write, body: { card: card.id, body: 'Can someone look?' } })).status, 201)
    const rounds = await settle(c, runner)
    assert.ok(rounds < 12, 'the work comes to an end')
    assert.equal(ai.requests.length, 1, 'exactly one AI call')
    assert.equal((await runsOf(c, made.body.automation.id)).length, 1)
    const comments = (await c.t.req('GET', `/v1/comments?card=${card.id}`, { token: c.tokens.member.read })).body.items
    assert.deepEqual(
      comments.map((x: { body: string }) => x.body),
      ['Can someone look?', 'Reply number 1'],
    )
    // A person's next comment starts it again: the chain ends with what the run caused.
    await c.t.req('POST', '/v1/comments', { token: c.tokens.member.write, body: { card: card.id, body: 'And this one?' } })
    await settle(c, runner)
    assert.equal(ai.requests.length, 2)
  } finally {
    await runner.stop(1000)
    await c.close()
    await ai.close()
  }
})

test('a run whose http_request step calls its own incoming endpoint makes one run, not one per call', async () => {
  const c = await agentApp()
  const runner = new AutomationRunner(c.t.deps, { log: () => {} })
  try {
    const tok = c.tokens.admin.write
    const ep = (await c.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Echo' } })).body.incoming_webhook
    const url = ep.url.replace('http://taskd.test', c.t.url)
    const made = await c.t.req('POST', '/v1/automations', {
      token: tok,
      body: {
        name: 'Call myself',
        board: c.board.id,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: [
          { type: 'create_card', title: 'Seen {webhook.body.n}' },
          // A forged chain header of the step's own is replaced by taskd's.
          { type: 'http_request', method: 'POST', url, headers: { 'X-Taskd-Chain': 'v1.forged.tag' }, body: '{"n":"again"}' },
        ],
      },
    })
    assert.equal(made.status, 201, made.text)
    const sent = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":"first"}' })
    assert.equal(sent.status, 202)
    const rounds = await settle(c, runner)
    assert.ok(rounds < 12, 'the work comes to an end')
    const runs = await runsOf(c, made.body.automation.id)
    assert.deepEqual(
      runs.map((r) => r.status),
      ['succeeded'],
    )
    // The call back was accepted and logged, and started nothing.
    const log = (await c.t.req('GET', `/v1/webhooks/incoming/${ep.id}/logs`, { token: tok })).body.items as { outcome: string; runs: string[] }[]
    assert.deepEqual(
      log.map((l) => [l.outcome, l.runs.length]),
      [
        ['accepted', 0],
        ['accepted', 1],
      ],
    )
    // A header taskd did not make is no chain: an outside request with one starts the automation as usual.
    const forged = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-taskd-chain': 'v1.e30.AAAA' }, body: '{}' })
    assert.equal(forged.status, 202)
    await settle(c, runner)
    assert.equal((await runsOf(c, made.body.automation.id)).length, 2)
  } finally {
    await runner.stop(1000)
    await c.close()
  }
})

test('an automation past its runs per minute is paused, says why in GET, and runs again once turned on', async () => {
  const c = await agentApp({ automationRunsPerMinute: 3 })
  try {
    const tok = c.tokens.admin.write
    const ep = (await c.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Busy' } })).body.incoming_webhook
    const url = ep.url.replace('http://taskd.test', c.t.url)
    const made = await c.t.req('POST', '/v1/automations', {
      token: tok,
      body: {
        name: 'Card per call',
        board: c.board.id,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: [{ type: 'create_card', title: 'Call' }],
      },
    })
    assert.equal(made.status, 201, made.text)
    const id = made.body.automation.id
    assert.equal(made.body.automation.paused_reason, null)
    for (let i = 0; i < 5; i++) assert.equal((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 202)
    assert.equal((await runsOf(c, id)).length, 3, 'three runs in the minute, then none')
    const paused = (await c.t.req('GET', `/v1/automations/${id}`, { token: c.tokens.member.read })).body.automation
    assert.equal(paused.active, false)
    assert.equal(paused.paused_reason, 'too_many_runs')
    // Once, by taskd, in the audit log.
    const logged = (await c.t.req('GET', `/v1/audit?filter=${encodeURIComponent(`action = "automation.paused" && target = "${id}"`)}`, { token: tok })).body
    assert.deepEqual(
      logged.items.map((e: { actor: unknown; board: string; details: unknown }) => [e.actor, e.board, e.details]),
      [[{ type: 'system', id: null, name: 'taskd' }, c.board.id, { reason: 'too_many_runs' }]],
    )
    // The document says what the field means.
    const doc = (await c.t.req('GET', '/v1/openapi.json')).body
    assert.match(JSON.stringify(doc.components.schemas.Automation.properties.paused_reason), /too_many_runs/)
    // On again: the reason goes, and the count starts over.
    const on = await c.t.req('PATCH', `/v1/automations/${id}`, { token: tok, body: { active: true } })
    assert.equal(on.status, 200, on.text)
    assert.deepEqual([on.body.automation.active, on.body.automation.paused_reason], [true, null])
    assert.equal((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 202)
    assert.equal((await runsOf(c, id)).length, 4)
  } finally {
    await c.close()
  }
})

test('a chain of different automations calling one another stops at 8 and pauses the next with chain_too_deep', async () => {
  const c = await agentApp()
  const runner = new AutomationRunner(c.t.deps, { log: () => {} })
  try {
    const tok = c.tokens.admin.write
    const LINKS = 10
    const eps = []
    for (let i = 0; i < LINKS; i++)
      eps.push((await c.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: `Link ${i}` } })).body.incoming_webhook)
    const urls = eps.map((ep) => ep.url.replace('http://taskd.test', c.t.url) as string)
    const ids: string[] = []
    for (let i = 0; i < LINKS; i++) {
      // Each automation calls the next one's endpoint: a loop no single automation shows.
      const steps = i + 1 < LINKS ? [{ type: 'http_request', method: 'POST', url: urls[i + 1], body: '{}' }] : [{ type: 'create_card', title: 'End' }]
      const made = await c.t.req('POST', '/v1/automations', {
        token: tok,
        body: { name: `Link ${i}`, board: c.board.id, trigger: { type: 'incoming_webhook', endpoint: eps[i].id }, steps },
      })
      assert.equal(made.status, 201, made.text)
      ids.push(made.body.automation.id)
    }
    assert.equal((await fetch(urls[0], { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 202)
    await settle(c, runner)
    const counts = await Promise.all(ids.map(async (id) => (await runsOf(c, id)).length))
    assert.deepEqual(counts, [1, 1, 1, 1, 1, 1, 1, 1, 0, 0], 'eight links ran; the ninth was not started')
    const ninth = (await c.t.req('GET', `/v1/automations/${ids[8]}`, { token: c.tokens.member.read })).body.automation
    assert.deepEqual([ninth.active, ninth.paused_reason], [false, 'chain_too_deep'])
    const tenth = (await c.t.req('GET', `/v1/automations/${ids[9]}`, { token: c.tokens.member.read })).body.automation
    assert.deepEqual([tenth.active, tenth.paused_reason], [true, null])
  } finally {
    await runner.stop(1000)
    await c.close()
  }
})
