// Names a client sends (sort, expand, filter fields, event names, any string parameter) are looked up in own-property
// maps only: the names of Object.prototype never reach a prototype and never answer 5xx, on any route.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededApp } from '../helpers/app.js'
import { assertErrorShape } from '../helpers/scenarios.js'

const NAMES = ['constructor', '__proto__', 'toString', '-valueOf', 'hasOwnProperty']

test('every GET route of the served document answers the prototype names in every string query parameter without a 5xx', async () => {
  const c = await seededApp()
  try {
    const doc = (await c.t.req('GET', '/v1/openapi.json')).body as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema?: { type?: string } }[] }>>
    }
    // A path naming an automation gets a real one (its runs list is a list route); any other id is the board's.
    const automation = (
      await c.t.req('POST', '/v1/automations', {
        token: c.tokens.owner.write,
        body: {
          name: 'a',
          board: c.board.id,
          active: false,
          trigger: { type: 'event', events: ['card.created'] },
          steps: [{ type: 'create_card', title: 't' }],
        },
      })
    ).body.automation
    // And a path naming an agent run gets a real one (its activity and questions are list routes).
    const agent = (
      await c.t.req('POST', '/v1/users', {
        token: c.tokens.admin.full,
        body: { kind: 'agent', name: 'Robo', agent: { owner: c.member.id, powers: ['local_access'] } },
      })
    ).body.user
    await c.t.req('POST', `/v1/boards/${c.board.id}/members`, { token: c.tokens.owner.write, body: { user: agent.id } })
    const card = (await c.t.req('POST', '/v1/cards', { token: c.tokens.owner.write, body: { board: c.board.id, title: 't' } })).body.card
    const kickoff = (await c.t.req('POST', '/v1/agent-kickoffs', { token: c.tokens.owner.write, body: { card: card.id, agent: agent.id } })).body.kickoff
    const idFor = (template: string) =>
      template.startsWith('/v1/automations/{id}') ? automation.id : template.startsWith('/v1/agent-runs/{id}') ? kickoff.run : c.board.id
    let tried = 0,
      listed = 0
    for (const [template, ops] of Object.entries(doc.paths)) {
      const op = ops.get
      if (!op) continue
      const path = template.replace(/\{\w+\}/g, idFor(template))
      const isList = ['page', 'filter'].every((name) => (op.parameters ?? []).some((p) => p.name === name))
      const strings = (op.parameters ?? []).filter((p) => p.in === 'query' && (p.schema?.type === 'string' || p.schema?.type === undefined)).map((p) => p.name)
      for (const param of strings) {
        for (const name of NAMES) {
          const r = await c.t.req('GET', `${path}?${param}=${encodeURIComponent(name)}`, { token: c.tokens.owner.read })
          assert.ok(r.status < 500, `GET ${path}?${param}=${name} answered ${r.status}: ${r.text.slice(0, 200)}`)
          // On a list route, a name looked up in a map (sort fields, expand relations, event names) is unknown: 400 in the error shape.
          if (isList && ['sort', 'expand', 'event'].includes(param)) {
            assert.equal(r.status, 400, `GET ${path}?${param}=${name}: ${r.text.slice(0, 200)}`)
            assertErrorShape(r.body)
            listed++
          }
          tried++
        }
      }
      for (const name of NAMES) {
        const r = await c.t.req('GET', `${path}?filter=${encodeURIComponent(`${name.replace('-', '')} = "x"`)}`, { token: c.tokens.owner.read })
        assert.ok(r.status < 500, `GET ${path} with a filter on ${name} answered ${r.status}`)
        if (isList) {
          assert.equal(r.status, 400, `GET ${path} with a filter on ${name}: ${r.text.slice(0, 200)}`)
          assert.equal(r.body.error.code, 'invalid_filter')
        }
      }
    }
    assert.ok(tried > 100, `${tried} requests`)
    assert.ok(listed >= 8 * NAMES.length, `${listed} sort, expand and event names refused`)
    for (const name of NAMES) {
      const sample = await c.t.req('GET', `/v1/webhooks/samples?event=${encodeURIComponent(name)}`, { token: c.tokens.owner.read })
      assert.equal(sample.status, 400, `samples for ${name}`)
      assertErrorShape(sample.body)
      // Event selectors of a subscription: refused at save, never matched against a prototype.
      const body = { name: 'w', url: 'http://127.0.0.1:9/x', events: [name], boards: [c.board.id], active: false }
      const sub = await c.t.req('POST', '/v1/webhooks', { token: c.tokens.owner.write, body })
      assert.equal(sub.status, 422, `event selector ${name}: ${sub.text}`)
      assert.ok(
        sub.body.error.details.some((d: { path: string }) => d.path.startsWith('events')),
        sub.text,
      )
    }
    const sort = await c.t.req('GET', '/v1/cards?sort=constructor', { token: c.tokens.owner.read })
    assert.equal(sort.status, 400)
    assert.equal(sort.body.error.code, 'bad_request')
  } finally {
    await c.t.close()
  }
})
