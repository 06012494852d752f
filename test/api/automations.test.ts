// Automations, the managing side: who may manage and see them, what is refused at save, and what deleting the things
// they use does.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { dbGet } from '../helpers/db.js'
import { assertErrorShape } from '../helpers/scenarios.js'

const card = (title = '{webhook.body.title}') => ({ type: 'create_card', title })

test('automations: board members manage them, read tokens see them, others do not; signing secrets need an owner or admin', async () => {
  const c = await seededApp()
  try {
    const endpoint = (await c.t.req('POST', '/v1/webhooks/incoming', { token: c.tokens.admin.write, body: { name: 'Form' } })).body.incoming_webhook
    const body = { name: 'Form to card', board: c.board.id, trigger: { type: 'incoming_webhook', endpoint: endpoint.id }, steps: [card()] }
    const made = await c.t.req('POST', '/v1/automations', { token: c.tokens.member.write, body })
    assert.equal(made.status, 201, made.text)
    const a = made.body.automation
    assert.deepEqual(
      { board: a.board, active: a.active, trigger: a.trigger, steps: a.steps, last_run: a.last_run, created_by: a.created_by.id, next_run_at: a.next_run_at },
      { board: c.board.id, active: true, trigger: body.trigger, steps: body.steps, last_run: null, created_by: c.member.id, next_run_at: null },
    )
    // Read tokens see; the outsider (no member of the board) does not, not even its existence.
    assert.equal((await c.t.req('GET', `/v1/automations/${a.id}`, { token: c.tokens.member.read })).status, 200)
    const listed = await c.t.req('GET', `/v1/automations?board=${c.board.id}`, { token: c.tokens.member.read })
    assert.deepEqual(
      listed.body.items.map((x: { id: string }) => x.id),
      [a.id],
    )
    assert.equal((await c.t.req('PATCH', `/v1/automations/${a.id}`, { token: c.tokens.member.read, body: { active: false } })).status, 403)
    for (const [method, path, b] of [
      ['GET', `/v1/automations/${a.id}`, undefined],
      ['PATCH', `/v1/automations/${a.id}`, { active: false }],
      ['DELETE', `/v1/automations/${a.id}`, undefined],
      ['GET', `/v1/automations/${a.id}/runs`, undefined],
    ] as const) {
      const r = await c.t.req(method, path, { token: c.tokens.outsider.write, body: b })
      assert.equal(r.status, 404, `${method} ${path}: ${r.text}`)
      assertErrorShape(r.body)
    }
    assert.equal((await c.t.req('GET', '/v1/automations', { token: c.tokens.outsider.read })).body.totalItems, 0)
    assert.equal((await c.t.req('POST', '/v1/automations', { token: c.tokens.outsider.write, body })).status, 404)
    // A step naming a signing secret: members 403, admins may; a member may not later rewrite those steps either.
    const secret = (await c.t.req('POST', '/v1/signing-secrets', { token: c.tokens.admin.write, body: { name: 'runner', value: 'runner-secret-0123456789' } }))
      .body.signing_secret
    const signed = { ...body, steps: [{ type: 'http_request', method: 'POST', url: 'https://93.184.215.14/hook', signing_secret: secret.id }], active: false }
    const refused = await c.t.req('POST', '/v1/automations', { token: c.tokens.member.write, body: signed })
    assert.equal(refused.status, 403, refused.text)
    const bySecret = await c.t.req('POST', '/v1/automations', { token: c.tokens.admin.write, body: signed })
    assert.equal(bySecret.status, 201, bySecret.text)
    const id2 = bySecret.body.automation.id
    try {
      const rewrite = await c.t.req('PATCH', `/v1/automations/${id2}`, {
        token: c.tokens.member.write,
        body: { steps: [{ ...signed.steps[0], url: 'https://93.184.215.15/mine' }] },
      })
      assert.equal(rewrite.status, 403, rewrite.text)
      // Renaming touches no step: allowed.
      assert.equal((await c.t.req('PATCH', `/v1/automations/${id2}`, { token: c.tokens.member.write, body: { name: 'Renamed' } })).status, 200)
      // The secret is in use: 409 naming the automation; the endpoint likewise.
      const inUse = await c.t.req('DELETE', `/v1/signing-secrets/${secret.id}`, { token: c.tokens.admin.write })
      assert.equal(inUse.status, 409, inUse.text)
      assert.match(inUse.body.error.message, new RegExp(id2))
    } finally {
      assert.equal((await c.t.req('DELETE', `/v1/automations/${id2}`, { token: c.tokens.admin.write })).status, 204)
    }
    assert.equal((await c.t.req('DELETE', `/v1/signing-secrets/${secret.id}`, { token: c.tokens.admin.write })).status, 204)
    const endpointInUse = await c.t.req('DELETE', `/v1/webhooks/incoming/${endpoint.id}`, { token: c.tokens.admin.write })
    assert.equal(endpointInUse.status, 409, endpointInUse.text)
    assert.match(endpointInUse.body.error.message, /Form to card/)
    // Edits and delete by a member of the board.
    const off = await c.t.req('PATCH', `/v1/automations/${a.id}`, { token: c.tokens.member.write, body: { active: false, name: 'Form v2' } })
    assert.equal(off.status, 200, off.text)
    assert.deepEqual([off.body.automation.active, off.body.automation.name], [false, 'Form v2'])
    assert.equal((await c.t.req('DELETE', `/v1/automations/${a.id}`, { token: c.tokens.member.write })).status, 204)
    assert.equal((await c.t.req('GET', `/v1/automations/${a.id}`, { token: c.tokens.member.read })).status, 404)
    assert.equal((await c.t.req('DELETE', `/v1/webhooks/incoming/${endpoint.id}`, { token: c.tokens.admin.write })).status, 204)
  } finally {
    await c.t.close()
  }
})

test('automations: bad triggers and steps are a 422 naming the field, and nothing is stored', async () => {
  const c = await seededApp()
  try {
    const tok = c.tokens.owner.write
    const other = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Other' } })).body
    const fenced = (await c.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Only other', boards: [other.board.id] } })).body
      .incoming_webhook
    const open = (await c.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Open' } })).body.incoming_webhook
    const hook = { type: 'incoming_webhook', endpoint: open.id }
    const event = { type: 'event', events: ['card.created'] }
    const base = { name: 'x', board: c.board.id, trigger: hook, steps: [card()] }
    const cases: [Record<string, unknown>, string][] = [
      [{ trigger: { type: 'incoming_webhook', endpoint: 'nope' } }, 'trigger.endpoint'],
      [{ trigger: { type: 'incoming_webhook', endpoint: fenced.id } }, 'trigger.endpoint'],
      [{ trigger: { type: 'event', events: ['card.exploded'] } }, 'trigger.events.0'],
      [{ trigger: { type: 'event', events: ['card.created'], filter: 'title ~' } }, 'trigger.filter'],
      [{ trigger: { type: 'schedule', cron: '* * * *' } }, 'trigger.cron'],
      [{ trigger: { type: 'schedule', cron: '0 0 * * * *' } }, 'trigger.cron'],
      [{ trigger: { type: 'schedule', cron: '61 * * * *' } }, 'trigger.cron'],
      [{ trigger: { type: 'schedule', cron: '0 9 * * 1', timezone: 'Mars/Olympus' } }, 'trigger.timezone'],
      [{ trigger: { type: 'cosmic' } }, 'trigger.type'],
      [{ steps: [] }, 'steps'],
      [{ steps: Array.from({ length: 21 }, () => card('t')) }, 'steps'],
      [{ steps: [{ type: 'create_card' }] }, 'steps.0.title'],
      [{ steps: [card('{webhok.body.title}')] }, 'steps.0.title'],
      [{ trigger: event, steps: [card('{webhook.body.title}')] }, 'steps.0.title'],
      [{ steps: [card('{event.data.title}')] }, 'steps.0.title'],
      [{ steps: [card('{steps.1.card.id}')] }, 'steps.0.title'],
      [{ steps: [card('t'), { type: 'move_card', card: '{steps.2.card.id}', list: c.lists[1].id }] }, 'steps.1.card'],
      [{ steps: [card('{secret.abc}')] }, 'steps.0.title'],
      [{ steps: [{ type: 'http_request', method: 'POST', url: 'https://93.184.215.14/x', body: '{secret.abc}' }] }, 'steps.0.body'],
      [{ steps: [{ type: 'http_request', method: 'POST', url: 'https://93.184.215.14/x', headers: { Authorization: 'Bearer {secret.nope}' } }] }, 'steps'],
      [{ steps: [{ type: 'http_request', method: 'POST', url: 'https://93.184.215.14/x', signing_secret: 'nope' }] }, 'steps'],
      [{ steps: [{ type: 'http_request', method: 'POST', url: 'https://{webhook.body.host}/x' }] }, 'steps.0.url'],
      [{ steps: [{ type: 'http_request', method: 'POST', url: 'ftp://93.184.215.14/x' }] }, 'steps.0.url'],
      [{ steps: [{ type: 'http_request', method: 'POST', url: 'https://93.184.215.14/x#frag' }] }, 'steps.0.url'],
      [{ steps: [{ type: 'http_request', method: 'POST', url: 'http://127.0.0.1:9/x' }] }, 'steps.0.url'],
      [{ steps: [{ type: 'http_request', method: 'POST', url: 'https://93.184.215.14/x', timeout_ms: 30_001 }] }, 'steps.0.timeout_ms'],
      [{ steps: [{ type: 'http_request', method: 'TRACE', url: 'https://93.184.215.14/x' }] }, 'steps.0.method'],
      [{ steps: [{ type: 'http_request', method: 'POST', url: 'https://93.184.215.14/x', headers: { 'Bad Name': 'v' } }] }, 'steps.0.headers.Bad Name'],
      [{ steps: [{ ...card('t'), list: other.lists[0].id }] }, 'steps.0.list'],
      [{ steps: [{ type: 'add_comment', card: '{webhook.body.card}', body: '' }] }, 'steps.0.body'],
      [{ steps: [{ ...card('t'), priority: 'high' }] }, 'steps.0.priority'],
      [{ steps: [{ type: 'complete_card', card: '{webhook.body.card}', completed: 'yes' }] }, 'steps.0.completed'],
      [{ board: 'nope' }, 'board'],
    ]
    for (const [patch, field] of cases) {
      const r = await c.t.req('POST', '/v1/automations', { token: tok, body: { ...base, ...patch } })
      if (field === 'board') {
        assert.equal(r.status, 404, r.text)
        continue
      }
      assert.equal(r.status, 422, `${JSON.stringify(patch)}: ${r.text}`)
      assertErrorShape(r.body)
      assert.ok(
        r.body.error.details.some((d: { path: string }) => d.path === field),
        `${JSON.stringify(patch)}: expected a detail at ${field}, got ${JSON.stringify(r.body.error.details)}`,
      )
    }
    assert.equal((await dbGet<{ n: number }>(c.t.deps.db, 'SELECT COUNT(*) AS n FROM automations'))!.n, 0)
    // Escapes and non-placeholder braces are fine: a JSON body with a placeholder inside.
    const ok = await c.t.req('POST', '/v1/automations', {
      token: tok,
      body: {
        ...base,
        active: false,
        steps: [
          {
            type: 'http_request',
            method: 'POST',
            url: 'https://93.184.215.14/x?ref={webhook.query.ref}',
            body: '{"title": "{webhook.body.title}", "lit": "{{x}}"}',
          },
        ],
      },
    })
    assert.equal(ok.status, 201, ok.text)
    // PATCH: a new trigger is checked against the saved steps.
    const bad = await c.t.req('PATCH', `/v1/automations/${ok.body.automation.id}`, { token: tok, body: { trigger: event } })
    assert.equal(bad.status, 422, bad.text)
    assert.ok(bad.body.error.details.some((d: { path: string }) => d.path === 'steps.0.url'))
    assert.equal((await c.t.req('DELETE', `/v1/automations/${ok.body.automation.id}`, { token: tok })).status, 204)
  } finally {
    await c.t.close()
  }
})

test('an accepted request starts the active automations of boards on the endpoint allowlist that are not in the trash, no others', async () => {
  const c = await seededApp()
  try {
    const tok = c.tokens.owner.write
    const other = (await c.t.req('POST', '/v1/boards', { token: tok, body: { name: 'Other' } })).body.board.id
    const endpoint = (await c.t.req('POST', '/v1/webhooks/incoming', { token: tok, body: { name: 'Form', boards: [c.board.id] } })).body.incoming_webhook
    const make = async (active: boolean) => {
      const body = { name: `Form ${active}`, board: c.board.id, active, trigger: { type: 'incoming_webhook', endpoint: endpoint.id }, steps: [card()] }
      const made = await c.t.req('POST', '/v1/automations', { token: tok, body })
      assert.equal(made.status, 201, made.text)
      return made.body.automation.id as string
    }
    const active = await make(true)
    await make(false)
    /** Fires the endpoint and answers the automations whose runs the request started. */
    const started = async () => {
      const fired = await c.t.req('POST', `/v1/webhooks/incoming/${endpoint.id}/trigger`, { token: tok, body: { title: 'x' } })
      assert.equal(fired.status, 202, fired.text)
      const logs = (await c.t.req('GET', `/v1/webhooks/incoming/${endpoint.id}/logs`, { token: tok })).body.items
      const runs: string[] = logs.find((l: { id: string }) => l.id === fired.body.request_id).runs
      const byAutomation = await Promise.all(
        runs.map((id) => dbGet<{ automation_id: string }>(c.t.deps.db, 'SELECT automation_id FROM automation_runs WHERE id = ?', id)),
      )
      return byAutomation.map((r) => r!.automation_id)
    }
    assert.deepEqual(await started(), [active], 'the active one on an allowed board; not the inactive one')
    const patch = (body: unknown) => c.t.req('PATCH', `/v1/webhooks/incoming/${endpoint.id}`, { token: tok, body })
    assert.equal((await patch({ boards: [other] })).status, 200)
    assert.deepEqual(await started(), [], 'its board left the allowlist')
    assert.equal((await patch({ boards: [] })).status, 200)
    assert.deepEqual(await started(), [active], 'an endpoint for every board')
    assert.equal((await c.t.req('DELETE', `/v1/boards/${c.board.id}`, { token: tok })).status, 204)
    assert.deepEqual(await started(), [], 'its board is in the trash')
    assert.equal((await c.t.req('POST', `/v1/boards/${c.board.id}/restore`, { token: tok })).status, 200)
    assert.deepEqual(await started(), [active], 'restored')
  } finally {
    await c.t.close()
  }
})
