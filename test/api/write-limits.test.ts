// Writes that do not come through a route keep the API's limits: an AI agent's reply and an automation step are held
// to the comment length limit of POST /v1/comments, and nothing past it is stored.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AutomationRunner } from '../../src/resources/automations/runner.js'
import { agentApp, fakeAi } from '../helpers/agents.js'
import { dbAll } from '../helpers/db.js'

const LIMIT = 100_000

test('an AI reply longer than a comment may be is cut to the limit, says so, and its run still proposes done', async () => {
  const ai = await fakeAi({ status: 200, reply: 'x'.repeat(300_000) })
  const c = await agentApp({ aiUrl: ai.url, aiModel: 'test-model' })
  try {
    const writer = await c.agent('Writer', { powers: ['service_ai'] })
    const card = await c.card()
    const k = await c.kickoff({ card: card.id, agent: writer.id })
    await c.dispatcher.runOnce()
    assert.equal(ai.requests.length, 1)
    assert.equal((await c.getKickoff(k.id)).status, 'delivered')
    assert.equal((await c.getRun(k.run)).status, 'done_proposed')
    const stored = await dbAll<{ body: string }>(c.t.deps.db, 'SELECT body FROM comments WHERE card_id = ?', card.id)
    assert.equal(stored.length, 1)
    assert.ok(stored[0].body.length <= LIMIT, `stored ${stored[0].body.length} characters`)
    assert.match(stored[0].body, /the reply was cut here: a comment holds at most 100,000 characters\)$/)
    // What the API shows is what a person could have written.
    const shown = (await c.t.req('GET', `/v1/comments?card=${card.id}`, { token: c.tokens.member.read })).body.items
    assert.equal(shown[0].body, stored[0].body)
  } finally {
    await c.close()
    await ai.close()
  }
})

test('an add_comment step whose placeholder fills the body past the limit fails with the API’s reason and stores nothing', async () => {
  const c = await agentApp()
  const runner = new AutomationRunner(c.t.deps, { log: () => {} })
  try {
    const card = await c.card()
    const tok = c.tokens.admin.write
    const ep = (await c.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Intake' } })).body.incoming_webhook
    const made = await c.t.req('POST', '/v1/automations', {
      token: tok,
      body: {
        name: 'echo',
        board: c.board.id,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: [{ type: 'add_comment', card: card.id, body: 'Said: {webhook.body.text}' }],
      },
    })
    assert.equal(made.status, 201, made.text)
    const sent = await fetch(ep.url.replace('http://taskd.test', c.t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'y'.repeat(150_000) }),
    })
    assert.equal(sent.status, 202)
    await runner.runOnce()
    const [run] = (await c.t.req('GET', `/v1/automations/${made.body.automation.id}/runs`, { token: tok })).body.items
    assert.equal(run.status, 'failed')
    assert.match(run.steps[0].error, /body: At most 100,000 characters/)
    assert.deepEqual(await dbAll(c.t.deps.db, 'SELECT id FROM comments WHERE card_id = ?', card.id), [])
  } finally {
    await runner.stop(1000)
    await c.close()
  }
})
