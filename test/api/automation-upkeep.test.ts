// What keeps automations bounded and safe over time: an automation keeps its newest 200 finished runs, the incoming
// log keeps a request whose runs have not finished (its files are still needed), and a board in the trash stops runs.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AutomationRunner } from '../../src/resources/automations/runner.js'
import { seededApp } from '../helpers/app.js'
import { dbGet, dbRun } from '../helpers/db.js'

async function upkeepApp() {
  const s = await seededApp()
  const runner = new AutomationRunner(s.t.deps, { log: () => {} })
  const tok = s.tokens.admin.write
  const ep = (await s.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Intake', accept_files: true } })).body.incoming_webhook
  const card = (await s.t.req('POST', '/v1/cards', { token: tok, body: { board: s.board.id, title: 'Counter' } })).body.card
  const created = await s.t.req('POST', '/v1/automations', {
    token: tok,
    body: {
      name: 'touch',
      board: s.board.id,
      trigger: { type: 'incoming_webhook', endpoint: ep.id },
      steps: [{ type: 'update_card', card: card.id, title: 'n={webhook.body.n}' }],
    },
  })
  assert.equal(created.status, 201, created.text)
  let sent = 0
  /** Fires the endpoint; the sender's rate window (120 a minute) is moved on by the fake clock as needed. */
  const fire = async (n: number, init: RequestInit = {}) => {
    if (++sent % 100 === 0) s.t.clock.advance(61_000)
    const r = await fetch(ep.url.replace('http://taskd.test', s.t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n }),
      ...init,
    })
    const text = await r.text()
    assert.equal(r.status, 202, text)
    return (JSON.parse(text) as { request_id: string }).request_id
  }
  const close = async () => {
    await runner.stop(1000)
    await s.t.close()
  }
  return { ...s, runner, tok, ep, card, automation: created.body.automation, fire, close }
}

test('an automation keeps its newest 200 finished runs', async () => {
  const c = await upkeepApp()
  try {
    for (let n = 1; n <= 240; n++) {
      await c.fire(n)
      assert.equal(await c.runner.runOnce(), 1)
    }
    const runs = (await c.t.req('GET', `/v1/automations/${c.automation.id}/runs?per_page=500`, { token: c.tok })).body
    assert.equal(runs.totalItems, 200)
    assert.ok(runs.items.every((r: { status: string }) => r.status === 'succeeded'))
    assert.equal((await c.t.req('GET', `/v1/cards/${c.card.id}`, { token: c.tok })).body.card.title, 'n=240')
  } finally {
    await c.close()
  }
})

test('the incoming log keeps a request (and its files) while its run has not finished, then lets it go', async () => {
  const c = await upkeepApp()
  try {
    const form = new FormData()
    form.append('n', '0')
    form.append('doc', new Blob([Buffer.from('hello')], { type: 'text/plain' }), 'a.txt')
    const first = await c.fire(0, { body: form, headers: {} })
    // From here on nothing listens: the later requests queue no runs, and the first one's run waits.
    assert.equal((await c.t.req('PATCH', `/v1/automations/${c.automation.id}`, { token: c.tok, body: { active: false } })).status, 200)
    for (let n = 1; n <= 140; n++) await c.fire(n)
    const kept = async () => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM incoming_requests WHERE id = ?', first))!.n)
    const files = async () => Number((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT count(*) AS n FROM files WHERE request_id = ?', first))!.n)
    assert.equal(await kept(), 1, 'older than the newest 100, but its run is queued')
    assert.equal(await files(), 1)
    assert.equal(await c.runner.runOnce(), 1) // the automation is off: the run ends, failed
    for (let n = 141; n <= 160; n++) await c.fire(n)
    assert.equal(await kept(), 0)
    assert.equal(await files(), 0)
  } finally {
    await c.close()
  }
})

test('a run whose board went to the trash stops without doing its steps', async () => {
  const c = await upkeepApp()
  try {
    await c.fire(7)
    assert.equal((await c.t.req('DELETE', `/v1/boards/${c.board.id}`, { token: c.tokens.owner.write })).status, 204)
    assert.equal(await c.runner.runOnce(), 1)
    assert.equal((await c.t.req('POST', `/v1/boards/${c.board.id}/restore`, { token: c.tokens.owner.write })).status, 200)
    const [run] = (await c.t.req('GET', `/v1/automations/${c.automation.id}/runs`, { token: c.tok })).body.items
    assert.equal(run.status, 'failed')
    assert.match(run.error, /trash/)
    assert.equal((await c.t.req('GET', `/v1/cards/${c.card.id}`, { token: c.tok })).body.card.title, 'Counter')
  } finally {
    await c.close()
  }
})

test('a run that never finishes (claimed five times already: a crash or an unexpected error each time) fails instead of looping', async () => {
  const c = await upkeepApp()
  try {
    await c.fire(1)
    // As if five runners had claimed it and died before finishing.
    await dbRun(c.t.deps.db, 'UPDATE automation_runs SET claims = 5')
    assert.equal(await c.runner.runOnce(), 1)
    const [run] = (await c.t.req('GET', `/v1/automations/${c.automation.id}/runs`, { token: c.tok })).body.items
    assert.equal(run.status, 'failed')
    assert.match(run.error, /did not finish in 5 attempts/)
    assert.equal((await c.t.req('GET', `/v1/cards/${c.card.id}`, { token: c.tok })).body.card.title, 'Counter')
    await c.fire(2)
    await dbRun(c.t.deps.db, "UPDATE automation_runs SET claims = 4 WHERE status = 'queued'")
    assert.equal(await c.runner.runOnce(), 1)
    assert.equal((await c.t.req('GET', `/v1/cards/${c.card.id}`, { token: c.tok })).body.card.title, 'n=2', 'the fifth claim still runs')
  } finally {
    await c.close()
  }
})
