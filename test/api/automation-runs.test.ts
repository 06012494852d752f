// Automation runs end to end: a real server, real requests to /v1/hooks/<path>, a local receiver for http_request
// steps, and the runner driven by hand at the fake clock's time.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { isoAt } from '../../src/clock.js'
import { AutomationRunner } from '../../src/resources/automations/runner.js'
import { seededApp } from '../helpers/app.js'
import { dbAll, dbGet } from '../helpers/db.js'
import { startReceiver } from '../webhooks/fixtures.js'

async function automationApp() {
  const s = await seededApp({ allowPrivateTargets: 'true' })
  const runner = new AutomationRunner(s.t.deps, { log: (m, e) => process.env.DEBUG_TASKD && console.error(m, e) })
  const receiver = await startReceiver()
  const close = async () => {
    await runner.stop(1000)
    await receiver.close()
    await s.t.close()
  }
  const tok = s.tokens.admin.write
  const endpoint = async (body: Record<string, unknown> = {}) =>
    (await s.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Intake', ...body } })).body.incoming_webhook
  const automation = async (body: Record<string, unknown>, token = tok) => {
    const r = await s.t.req('POST', '/v1/automations', { token, body: { name: 'auto', board: s.board.id, ...body } })
    assert.equal(r.status, 201, r.text)
    return r.body.automation
  }
  // Read with a token that may manage the automations, which sees what the steps sent and got back.
  const runs = async (id: string) => (await s.t.req('GET', `/v1/automations/${id}/runs`, { token: tok })).body.items
  return { ...s, runner, receiver, close, tok, endpoint, automation, runs }
}

test('an accepted request runs create_card with every placeholder filled in, as the endpoint, and the log links the run', async () => {
  const c = await automationApp()
  try {
    const ep = await c.endpoint({ name: 'Support form', auth: { type: 'header', header_name: 'X-Key', header_value: 'form-key-0123456789' } })
    const description = [
      'name={webhook.name}',
      'method={webhook.method}',
      'ip={webhook.ip}',
      'ref={webhook.query.ref}',
      'ua={webhook.header.User-Agent}',
      'rid={webhook.header.x-request-id}',
      'key=[{webhook.header.x-key}]',
      'files={webhook.files}/{webhook.files_count}',
      'nested={webhook.body.meta.tags.1}',
      'obj={webhook.body.meta.owner}',
      'missing=[{webhook.body.nope}]',
      'literal={{webhook.body.title}} {"json": true}',
      'run={run.id}',
      'now={now}',
      'raw={webhook.body}',
    ].join('\n')
    const a = await c.automation({
      trigger: { type: 'incoming_webhook', endpoint: ep.id },
      steps: [
        {
          type: 'create_card',
          title: '{webhook.body.title}',
          description,
          list: '{webhook.body.list}',
          priority: '{webhook.body.priority}',
          assignees: '{webhook.body.who}',
          due_date: '{webhook.body.due}',
        },
        { type: 'update_card', card: '{steps.1.card.id}', title: '{steps.1.card.title} ({steps.1.card.key})', completed: '{webhook.body.done}' },
      ],
    })
    const body = JSON.stringify({
      title: 'Printer on fire',
      list: c.lists[1].id,
      priority: 3,
      who: c.member.id,
      due: '2026-12-01',
      done: true,
      meta: { tags: ['hw', 'urgent'], owner: { name: 'Ann' } },
    })
    const sent = await fetch(`${ep.url.replace('http://taskd.test', c.t.url)}?ref=abc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-key': 'form-key-0123456789', 'user-agent': 'form-bot/1', 'x-request-id': 'req-7' },
      body,
    })
    assert.equal(sent.status, 202)
    const { request_id } = (await sent.json()) as { request_id: string }
    // Queued with the request, before any step ran.
    assert.deepEqual(
      (await c.runs(a.id)).map((r: { status: string }) => r.status),
      ['queued'],
    )
    const ranAt = isoAt(c.t.clock.now())
    assert.equal(await c.runner.runOnce(), 1)
    const [run] = await c.runs(a.id)
    assert.equal(run.status, 'succeeded', JSON.stringify(run))
    assert.deepEqual(run.trigger, { type: 'incoming_webhook', endpoint: ep.id, request: request_id })
    assert.deepEqual(run.actor, { type: 'incoming_webhook', id: ep.id, name: 'Support form' })
    assert.deepEqual(
      run.steps.map((s: { index: number; type: string; status: string }) => [s.index, s.type, s.status]),
      [
        [1, 'create_card', 'succeeded'],
        [2, 'update_card', 'succeeded'],
      ],
    )
    const cardId = run.steps[0].output.card.id
    const card = (await c.t.req('GET', `/v1/cards/${cardId}`, { token: c.tokens.member.read })).body.card
    assert.equal(card.title, `Printer on fire (${card.key})`)
    // Completed by the second step, so moved to the board's completed list.
    assert.deepEqual([card.list, card.priority, card.assignees, card.due_date, card.completed], [c.lists[2].id, 3, [c.member.id], '2026-12-01', true])
    assert.equal(card.created_by, null, 'made by an endpoint, not a user')
    assert.equal(
      card.description,
      [
        'name=Support form',
        'method=POST',
        'ip=127.0.0.1',
        'ref=abc',
        'ua=form-bot/1',
        'rid=req-7',
        'key=[]',
        'files=/0',
        'nested=urgent',
        'obj={"name":"Ann"}',
        'missing=[]',
        'literal={webhook.body.title} {"json": true}',
        `run=${run.id}`,
        `now=${ranAt}`,
        `raw=${body}`,
      ].join('\n'),
    )
    // The log names the run; the automation its last run.
    const log = (await c.t.req('GET', `/v1/webhooks/incoming/${ep.id}/logs`, { token: c.tok })).body.items
    assert.deepEqual(log[0].runs, [run.id])
    assert.deepEqual((await c.t.req('GET', `/v1/automations/${a.id}`, { token: c.tok })).body.automation.last_run, {
      id: run.id,
      status: 'succeeded',
      at: run.finished_at,
    })
    assert.deepEqual((await c.t.req('GET', `/v1/automations/runs/${run.id}`, { token: c.tokens.member.write })).body.run, run)
    assert.equal((await c.t.req('GET', `/v1/automations/runs/${run.id}`, { token: c.tokens.outsider.read })).status, 404)
    // Events of the run carry the endpoint as actor.
    const events = await dbAll<{ name: string; data: string }>(c.t.deps.db, "SELECT name, data FROM events WHERE name LIKE 'card.%' ORDER BY seq")
    assert.deepEqual(
      events.map((e) => e.name),
      ['card.created', 'card.assigned', 'card.updated', 'card.moved', 'card.completed'],
    )
    for (const e of events) assert.deepEqual(JSON.parse(e.data).actor, { id: ep.id, name: 'Support form', kind: 'incoming_webhook' })
  } finally {
    await c.close()
  }
})

test('files of a multipart request are attached to the card a create_card step makes; the trigger route runs as the caller', async () => {
  const c = await automationApp()
  try {
    const ep = await c.endpoint({ accept_files: true })
    const a = await c.automation({
      trigger: { type: 'incoming_webhook', endpoint: ep.id },
      steps: [{ type: 'create_card', title: '{webhook.body.subject}: {webhook.files} ({webhook.files_count})' }],
    })
    const form = new FormData()
    form.append('subject', 'Scans')
    form.append('one', new Blob([Buffer.from('first file')], { type: 'text/plain' }), 'a.txt')
    form.append('two', new Blob([Buffer.from([0, 1, 2, 255])], { type: 'application/octet-stream' }), 'b.bin')
    const sent = await fetch(ep.url.replace('http://taskd.test', c.t.url), { method: 'POST', body: form })
    assert.equal(sent.status, 202, await sent.text())
    await c.runner.runOnce()
    const [run] = await c.runs(a.id)
    assert.equal(run.status, 'succeeded', JSON.stringify(run))
    const card = run.steps[0].output.card
    assert.equal(card.title, 'Scans: a.txt,b.bin (2)')
    const found = await c.t.req('GET', `/v1/cards?filter=${encodeURIComponent('files.name = "b.bin"')}`, { token: c.tokens.member.read })
    assert.deepEqual(
      found.body.items.map((x: { id: string }) => x.id),
      [card.id],
    )
    // Copies in the one file store (chunks and all), named on the card and in the step's output.
    const files = await dbAll<{ id: string; name: string; content_type: string; data: Uint8Array }>(
      c.t.deps.db,
      'SELECT f.id, f.name, f.content_type, c.data FROM files f JOIN file_chunks c ON c.file_id = f.id WHERE f.card_id = ? ORDER BY f.name, c.seq',
      card.id,
    )
    assert.deepEqual([...card.files].sort(), files.map((f) => f.id).sort())
    assert.deepEqual(
      files.map((f) => [f.name, f.content_type, Buffer.from(f.data).toString('hex')]),
      [
        ['a.txt', 'text/plain', Buffer.from('first file').toString('hex')],
        ['b.bin', 'application/octet-stream', '000102ff'],
      ],
    )
    // The trigger route: the member fires it; the run acts in their name, and only on boards the member sees.
    const hidden = (await c.t.req('POST', '/v1/boards', { token: c.tokens.owner.write, body: { name: 'Hidden' } })).body.board
    const elsewhere = await c.automation({
      board: hidden.id,
      trigger: { type: 'incoming_webhook', endpoint: ep.id },
      steps: [{ type: 'create_card', title: 'x' }],
    })
    const fired = await c.t.req('POST', `/v1/webhooks/incoming/${ep.id}/trigger`, { token: c.tokens.member.write, body: { subject: 'By hand' } })
    assert.equal(fired.status, 202, fired.text)
    await c.runner.runOnce()
    assert.equal((await c.t.req('GET', `/v1/automations/${elsewhere.id}/runs`, { token: c.tokens.owner.read })).body.totalItems, 0)
    const [latest] = await c.runs(a.id)
    assert.deepEqual([latest.actor.type, latest.actor.id], ['user', c.member.id])
    assert.equal(latest.steps[0].output.card.title, 'By hand:  (0)')
  } finally {
    await c.close()
  }
})

test('http_request: the V2 signature checks out independently, {secret.<id>} is sent but never stored or shown, and a failing step fails the run', async () => {
  const c = await automationApp()
  try {
    const SECRET = 'gateway-secret-0123456789abcdef'
    const TOKEN = 'bearer-secret-value-9876543210'
    const signing = (await c.t.req('POST', '/v1/signing-secrets', { token: c.tok, body: { name: 'gateway', value: SECRET } })).body.signing_secret
    const bearer = (await c.t.req('POST', '/v1/signing-secrets', { token: c.tok, body: { name: 'api token', value: TOKEN } })).body.signing_secret
    const ep = await c.endpoint()
    const steps = [
      { type: 'create_card', title: '{webhook.body.title}' },
      {
        type: 'http_request',
        method: 'POST',
        url: `${c.receiver.url}/echo?card={steps.1.card.id}`,
        headers: { Authorization: `Bearer {secret.${bearer.id}}`, 'X-Card': '{steps.1.card.key}' },
        body: '{"card": "{steps.1.card.id}", "title": "{webhook.body.title}"}',
        signing_secret: signing.id,
      },
    ]
    const a = await c.automation({ trigger: { type: 'incoming_webhook', endpoint: ep.id }, steps })
    assert.deepEqual(a.steps, steps, 'stored as written')
    const row = await dbGet<{ steps: string }>(c.t.deps.db, 'SELECT steps FROM automations WHERE id = ?', a.id)
    assert.ok(row!.steps.includes(`{secret.${bearer.id}}`) && !row!.steps.includes(TOKEN))
    assert.equal(
      (
        await fetch(ep.url.replace('http://taskd.test', c.t.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'Ship it' }),
        })
      ).status,
      202,
    )
    c.t.clock.advance(1234)
    await c.runner.runOnce()
    const [run] = await c.runs(a.id)
    assert.equal(run.status, 'succeeded', JSON.stringify(run))
    const card = run.steps[0].output.card
    const hit = c.receiver.hits[0]
    assert.equal(c.receiver.hits.length, 1)
    assert.equal(hit.path, `/echo?card=${card.id}`)
    assert.equal(hit.body, `{"card": "${card.id}", "title": "Ship it"}`)
    assert.deepEqual([hit.headers.authorization, hit.headers['x-card'], hit.headers['content-type']], [`Bearer ${TOKEN}`, card.key, 'application/json'])
    // An independent check of the signature: HMAC-SHA256 of "<timestamp>.<raw body>" with the secret's value.
    const ts = hit.headers['x-webhook-timestamp'] as string
    assert.equal(ts, String(Math.floor(c.t.clock.now() / 1000)))
    assert.equal(hit.headers['x-webhook-signature-v2'], createHmac('sha256', SECRET).update(`${ts}.${hit.body}`).digest('hex'))
    // The receiver echoed the headers back: the output keeps them, with the secret taken out.
    const output = run.steps[1].output
    assert.equal(output.status, 200)
    assert.equal(output.body['x-card'], card.key, JSON.stringify(output))
    assert.ok(!output.body.authorization.includes(TOKEN))
    for (const text of [
      JSON.stringify(await c.runs(a.id)),
      (await c.t.req('GET', `/v1/automations/${a.id}`, { token: c.tok })).text,
      JSON.stringify(await dbAll(c.t.deps.db, 'SELECT * FROM automation_run_steps')),
      JSON.stringify(await dbAll(c.t.deps.db, 'SELECT * FROM automation_runs')),
    ]) {
      assert.ok(!text.includes(TOKEN) && !text.includes(SECRET))
    }
    // A failing call fails its step and the run, and skips what follows; the 202 was answered long before.
    const failing = await c.automation({
      trigger: { type: 'incoming_webhook', endpoint: ep.id },
      steps: [
        { type: 'http_request', method: 'GET', url: `${c.receiver.url}/redirect` },
        { type: 'create_card', title: 'never' },
      ],
    })
    // Each way a call can fail, one automation each; and a step that sets its own Content-Type.
    const closed = http.createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const closedPort = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    const outcomes = new Map<string, string>()
    for (const [name, url, timeout] of [
      ['4xx', `${c.receiver.url}/status/404`, undefined],
      ['5xx', `${c.receiver.url}/status/503`, undefined],
      ['timeout', `${c.receiver.url}/hang`, 100],
      ['refused', `http://127.0.0.1:${closedPort}/x`, undefined],
    ] as const) {
      const one = await c.automation({
        name,
        trigger: { type: 'incoming_webhook', endpoint: ep.id },
        steps: [{ type: 'http_request', method: 'POST', url, timeout_ms: timeout }],
      })
      outcomes.set(name, one.id)
    }
    const form = await c.automation({
      trigger: { type: 'incoming_webhook', endpoint: ep.id },
      steps: [
        {
          type: 'http_request',
          method: 'PUT',
          url: `${c.receiver.url}/form`,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'a=1&t={webhook.body.title}',
        },
      ],
    })
    const encoded = await c.automation({
      trigger: { type: 'incoming_webhook', endpoint: ep.id },
      steps: [{ type: 'http_request', method: 'GET', url: `${c.receiver.url}/ok/{webhook.body.path}?t={webhook.body.title}` }],
    })
    const broken = await c.automation({
      trigger: { type: 'incoming_webhook', endpoint: ep.id },
      steps: [
        { type: 'create_card', title: 'made' },
        { type: 'move_card', card: '{webhook.body.nope}', list: c.lists[1].id },
        { type: 'http_request', method: 'DELETE', url: `${c.receiver.url}/status/500` },
      ],
    })
    assert.equal(
      (
        await fetch(ep.url.replace('http://taskd.test', c.t.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"title":"x & y","path":"../../admin?all=1"}',
        })
      ).status,
      202,
    )
    await c.runner.runOnce()
    const [f] = await c.runs(failing.id)
    assert.equal(f.status, 'failed')
    assert.deepEqual(
      f.steps.map((s: { status: string }) => s.status),
      ['failed', 'skipped'],
    )
    assert.equal(f.steps[0].output.status, 302)
    assert.match(f.steps[0].error, /302/)
    const [b] = await c.runs(broken.id)
    assert.deepEqual(
      b.steps.map((s: { status: string }) => s.status),
      ['succeeded', 'failed', 'skipped'],
    )
    assert.match(b.steps[1].error, /card/)
    // A filled-in value is one path segment or query value: it cannot climb out of the path or add parameters.
    assert.equal((await c.runs(encoded.id))[0].status, 'succeeded')
    assert.deepEqual(
      c.receiver.hits.filter((h) => h.path.startsWith('/ok/')).map((h) => h.path),
      ['/ok/%2E%2E%2F%2E%2E%2Fadmin%3Fall%3D1?t=x%20%26%20y'],
    )
    assert.equal(c.receiver.hits.filter((h) => h.path === '/status/500').length, 0, 'a skipped step sends nothing')
    const failures: Record<string, [string, number | null, RegExp]> = {
      '4xx': ['failed', 404, /404/],
      '5xx': ['failed', 503, /503/],
      timeout: ['failed', null, /timed out after 100 ms/],
      refused: ['failed', null, /ECONNREFUSED/],
    }
    for (const [name, [status, code, error]] of Object.entries(failures)) {
      const [r] = await c.runs(outcomes.get(name)!)
      assert.equal(r.status, status, `${name}: ${JSON.stringify(r)}`)
      assert.equal(r.steps[0].output?.status ?? null, code, name)
      assert.match(r.steps[0].error, error, name)
    }
    assert.equal((await c.runs(form.id))[0].status, 'succeeded')
    const sentForm = c.receiver.hits.find((h) => h.path === '/form')!
    assert.deepEqual([sentForm.method, sentForm.headers['content-type'], sentForm.body], ['PUT', 'application/x-www-form-urlencoded', 'a=1&t=x & y'])
  } finally {
    await c.close()
  }
})

test('http_request: a placeholder fills exactly one path segment: `..`, `.` and `/` never change the number of segments', async () => {
  const c = await automationApp()
  try {
    const ep = await c.endpoint()
    const a = await c.automation({
      trigger: { type: 'incoming_webhook', endpoint: ep.id },
      steps: [{ type: 'http_request', method: 'GET', url: `${c.receiver.url}/tenant/123/{webhook.body.a}/{webhook.body.b}/admin?q={webhook.body.a}` }],
    })
    const cases: [unknown, unknown, string][] = [
      ['..', '..', '/tenant/123/%2E%2E/%2E%2E/admin?q=%2E%2E'],
      ['.', '.', '/tenant/123/%2E/%2E/admin?q=%2E'],
      ['../..', 'x/y', '/tenant/123/%2E%2E%2F%2E%2E/x%2Fy/admin?q=%2E%2E%2F%2E%2E'],
      ['%2e%2e', '', '/tenant/123/%252e%252e//admin?q=%252e%252e'],
    ]
    for (const [x, y] of cases) {
      const res = await fetch(ep.url.replace('http://taskd.test', c.t.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ a: x, b: y }),
      })
      assert.equal(res.status, 202)
    }
    await c.runner.runOnce()
    const runs = await c.runs(a.id)
    assert.deepEqual(
      runs.map((r: { status: string }) => r.status),
      cases.map(() => 'succeeded'),
    )
    // The receiver on 127.0.0.1 records the request target exactly as it arrived.
    assert.deepEqual(c.receiver.hits.map((h) => h.path).sort(), cases.map(([, , path]) => path).sort())
    for (const hit of c.receiver.hits) assert.equal(hit.path.split('?')[0].split('/').length, 6, `${hit.path} keeps the template's segments`)
  } finally {
    await c.close()
  }
})

test('event triggers: selectors and a card filter pick the events; changes a run makes start no automation, so two automations cannot loop', async () => {
  const c = await automationApp()
  try {
    const urgent = await c.automation({
      trigger: { type: 'event', events: ['card.created'], filter: 'title ~ "urgent"' },
      steps: [{ type: 'update_card', card: '{event.data.id}', priority: 4, description: 'by {event.name}' }],
    })
    // Two automations that both react to card.updated by updating the same card again.
    const bang = await c.automation({
      trigger: { type: 'event', events: ['card.updated'] },
      steps: [{ type: 'update_card', card: '{event.data.id}', title: '{event.data.title}!' }],
    })
    const star = await c.automation({
      trigger: { type: 'event', events: ['card.*'] },
      steps: [{ type: 'update_card', card: '{event.data.id}', description: '*' }],
    })
    const calm = (await c.t.req('POST', '/v1/cards', { token: c.tokens.member.write, body: { board: c.board.id, title: 'calm' } })).body.card
    const hot = (await c.t.req('POST', '/v1/cards', { token: c.tokens.member.write, body: { board: c.board.id, title: 'Urgent: fix' } })).body.card
    for (let i = 0; i < 3; i++) await c.runner.runOnce()
    assert.equal((await c.runs(urgent.id)).length, 1, 'only the card that matches the filter')
    assert.equal((await c.runs(urgent.id))[0].steps[0].output.card.id, hot.id)
    assert.equal((await c.runs(bang.id)).length, 0, "the run's own card.updated starts nothing")
    assert.equal((await c.runs(star.id)).length, 2, 'card.* took both card.created events')
    const after = (await c.t.req('GET', `/v1/cards/${hot.id}`, { token: c.tokens.member.read })).body.card
    assert.equal(after.priority, 4)
    // A person's change starts both card.updated automations once each; their own changes start nothing more.
    assert.equal((await c.t.req('PATCH', `/v1/cards/${calm.id}`, { token: c.tokens.member.write, body: { title: 'Calm' } })).status, 200)
    for (let i = 0; i < 3; i++) await c.runner.runOnce()
    assert.equal((await c.runs(bang.id)).length, 1)
    assert.equal((await c.runs(star.id)).length, 3)
    const calmNow = (await c.t.req('GET', `/v1/cards/${calm.id}`, { token: c.tokens.member.read })).body.card
    assert.equal(calmNow.title, 'Calm!')
    const runEvents = await dbAll<{ data: string }>(c.t.deps.db, "SELECT data FROM events WHERE name = 'card.updated' ORDER BY seq")
    assert.deepEqual(JSON.parse(runEvents.at(-1)!.data).actor.kind, 'automation')
    // An automation turned off: its queued run fails without doing anything.
    await c.t.req('PATCH', `/v1/cards/${calm.id}`, { token: c.tokens.member.write, body: { title: 'Quiet' } })
    await c.t.req('PATCH', `/v1/automations/${bang.id}`, { token: c.tok, body: { active: false } })
    await c.runner.runOnce()
    const [off] = await c.runs(bang.id)
    assert.deepEqual([off.status, off.steps, off.error], ['failed', [], 'The automation was turned off before the run finished.'])
    assert.equal((await c.t.req('GET', `/v1/cards/${calm.id}`, { token: c.tokens.member.read })).body.card.title, 'Quiet')
    // A member's automation stops acting once they leave the board.
    const mine = await c.automation(
      { trigger: { type: 'event', events: ['card.updated'] }, steps: [{ type: 'update_card', card: '{event.data.id}', priority: 1 }] },
      c.tokens.member.write,
    )
    assert.equal((await c.t.req('DELETE', `/v1/boards/${c.board.id}/members/${c.member.id}`, { token: c.tokens.owner.write })).status, 204)
    await c.t.req('PATCH', `/v1/cards/${calm.id}`, { token: c.tokens.owner.write, body: { title: 'Left' } })
    await c.runner.runOnce()
    const [gone] = (await c.t.req('GET', `/v1/automations/${mine.id}/runs`, { token: c.tokens.owner.read })).body.items
    assert.deepEqual([gone.status, gone.error], ['failed', "The automation's creator is no longer a member of its board."])
    assert.equal((await c.t.req('GET', `/v1/cards/${calm.id}`, { token: c.tokens.owner.read })).body.card.priority, 0)
  } finally {
    await c.close()
  }
})

test('schedules: a 5-field cron in a time zone, driven by the clock; slots missed while down run once', async () => {
  const c = await automationApp()
  try {
    // The fake clock starts at 2026-11-21T12:00:00Z.
    const every5 = await c.automation({ trigger: { type: 'schedule', cron: '*/5 * * * *' }, steps: [{ type: 'create_card', title: 'Tick {now}' }] })
    assert.equal(every5.next_run_at, '2026-11-21T12:05:00.000Z')
    const berlin = await c.automation({
      trigger: { type: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Berlin' },
      steps: [{ type: 'create_card', title: 'Morning' }],
    })
    assert.equal(berlin.next_run_at, '2026-11-22T08:00:00.000Z', '09:00 in Berlin is 08:00 UTC in November')
    assert.equal(await c.runner.runOnce(), 0)
    c.t.clock.advance(5 * 60_000)
    assert.equal(await c.runner.runOnce(), 1)
    const [first] = await c.runs(every5.id)
    assert.deepEqual(
      [first.status, first.trigger, first.actor.type],
      ['succeeded', { type: 'schedule', scheduled_for: '2026-11-21T12:05:00.000Z' }, 'schedule'],
    )
    assert.equal(first.steps[0].output.card.title, 'Tick 2026-11-21T12:05:00.000Z')
    // An hour down: twelve slots missed, one run; the schedule moves on to the first slot after now.
    c.t.clock.advance(60 * 60_000)
    assert.equal(await c.runner.runOnce(), 1)
    assert.equal(await c.runner.runOnce(), 0)
    const all = await c.runs(every5.id)
    assert.equal(all.length, 2)
    assert.equal(all[0].trigger.scheduled_for, '2026-11-21T12:10:00.000Z')
    assert.equal((await c.t.req('GET', `/v1/automations/${every5.id}`, { token: c.tok })).body.automation.next_run_at, '2026-11-21T13:10:00.000Z')
    // Turned off: no slot; on again: the next slot from now.
    const off = await c.t.req('PATCH', `/v1/automations/${every5.id}`, { token: c.tok, body: { active: false } })
    assert.equal(off.body.automation.next_run_at, null)
    c.t.clock.advance(60 * 60_000)
    assert.equal(await c.runner.runOnce(), 0)
    const on = await c.t.req('PATCH', `/v1/automations/${every5.id}`, { token: c.tok, body: { active: true } })
    assert.equal(on.body.automation.next_run_at, '2026-11-21T14:10:00.000Z')
    assert.equal((await c.runs(berlin.id)).length, 0)
  } finally {
    await c.close()
  }
})
